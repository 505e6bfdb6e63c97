package browsertest

import "encoding/json"

// remarshal decodes v (a value decoded from JSON) into out through JSON.
func remarshal(v, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
