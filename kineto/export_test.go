package kineto

// ResetRegisteredForTest empties the registered plugins and the PrivateUse1 registration, so a
// test that registers leaves later tests as it found them.
func ResetRegisteredForTest() {
	regMu.Lock()
	registered = nil
	regMu.Unlock()
	pu1.mu.Lock()
	pu1.factory, pu1.made, pu1.inst = nil, false, nil
	pu1.mu.Unlock()
}
