package results

// AbortedIn is the first abort among the phases of res, warm-ups
// included; nil when no rule stopped the run.
func AbortedIn(res *ScenarioResult) *Aborted {
	if res == nil {
		return nil
	}
	for _, c := range res.Cases {
		for _, p := range c.Phases {
			if p.Aborted != nil {
				a := *p.Aborted
				if a.Case == "" {
					a.Case = c.ID
				}
				if a.Phase == "" {
					a.Phase = p.Name
				}
				return &a
			}
		}
	}
	return nil
}
