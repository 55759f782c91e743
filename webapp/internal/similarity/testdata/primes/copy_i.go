package main

import "fmt"

// tally counts the unmarked numbers from 2 on.
func tally(marked []bool) int {
	total := 0
	for k := 2; k < len(marked); k++ {
		if !marked[k] {
			total++
		}
	}
	return total
}

func main() {
	var limit int
	fmt.Scan(&limit)
	if limit < 2 {
		fmt.Println(0)
		return
	}
	fmt.Println(tally(mark(limit)))
}

func mark(limit int) []bool {
	marked := make([]bool, limit+1)
	for p := 2; p*p <= limit; p++ {
		if marked[p] {
			continue
		}
		for q := p * p; q <= limit; q += p {
			marked[q] = true
		}
	}
	return marked
}
