package testpkg

// DependsMet reports, for each subtask i (names[i], depending on the
// subtasks named depends[i]), whether every subtask it depends on is
// passed in full, transitively: a subtask is passed in full when its own
// cases all passed (own[i]) and its dependencies are met, as a judge that
// skips a group whose dependencies failed scores it. A subtask on a
// dependency cycle never has its dependencies met. The judge's score and
// the feedback shown to contestants both use it.
func DependsMet(names []string, depends [][]string, own []bool) []bool {
	index := make(map[string]int, len(names))
	for i, n := range names {
		if _, dup := index[n]; !dup {
			index[n] = i
		}
	}
	const (
		unknown = iota
		visiting
		done
	)
	state := make([]int, len(names))
	full := make([]bool, len(names))
	met := make([]bool, len(names))
	var visit func(i int) bool // whether subtask i is passed in full
	visit = func(i int) bool {
		switch state[i] {
		case visiting:
			return false // a cycle
		case done:
			return full[i]
		}
		state[i] = visiting
		ok := true
		for _, d := range depends[i] {
			j, known := index[d]
			if !known || !visit(j) {
				ok = false
			}
		}
		met[i], full[i], state[i] = ok, ok && own[i], done
		return full[i]
	}
	for i := range names {
		visit(i)
	}
	return met
}
