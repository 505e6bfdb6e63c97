package kineto

// Config is a parsed Kineto config: KEY = VALUE options. (Parsing lives in config_parse.go.)
type Config struct {
	// Activities is ACTIVITY_TYPES, or the default set.
	Activities ActivitySet
	// Options holds every KEY = VALUE pair read, keys upper-case.
	Options map[string]string
}

// NewConfig returns a config with the default activities and no options.
func NewConfig() *Config {
	return &Config{Activities: DefaultActivities(), Options: map[string]string{}}
}

// Get returns the value of key and whether it was set.
func (c *Config) Get(key string) (string, bool) {
	if c == nil || c.Options == nil {
		return "", false
	}
	v, ok := c.Options[key]
	return v, ok
}
