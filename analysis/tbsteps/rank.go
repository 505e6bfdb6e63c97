package tbsteps

import (
	"bytes"
	"encoding/json"

	"github.com/orprof/orprof/trace"
)

// rankJSON is a Rank's JSON.
type rankJSON struct {
	Rank             int64                  `json:"rank"`
	Trace            string                 `json:"trace"`
	Steps            []Step                 `json:"steps"`
	AverageNs        [NumCategories]float64 `json:"average_ns"`
	AverageTotalNs   float64                `json:"average_total_ns"`
	HasDevice        bool                   `json:"has_device"`
	HasCommunication bool                   `json:"has_communication"`
}

// MarshalJSON writes r as rankJSON.
func (r Rank) MarshalJSON() ([]byte, error) {
	return json.Marshal(rankJSON{r.Number, r.Trace, r.Steps, r.AverageNs, r.AverageTotalNs, r.HasDevice, r.HasCommunication})
}

// UnmarshalJSON reads rankJSON strictly (no member it does not know).
func (r *Rank) UnmarshalJSON(data []byte) error {
	var j rankJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return err
	}
	*r = Rank{Rank: trace.Rank{Number: j.Rank, Trace: j.Trace}, Steps: j.Steps, AverageNs: j.AverageNs,
		AverageTotalNs: j.AverageTotalNs, HasDevice: j.HasDevice, HasCommunication: j.HasCommunication}
	return nil
}
