package main

import (
	"bufio"
	"fmt"
	"os"
)

func readInts(r *bufio.Reader) []int64 {
	var n int
	fmt.Fscan(r, &n)
	xs := make([]int64, n)
	for i := range xs {
		fmt.Fscan(r, &xs[i])
	}
	return xs
}

// best returns the largest sum of a non-empty run.
func best(xs []int64) int64 {
	b, cur := xs[0], int64(0)
	for _, x := range xs {
		if cur < 0 {
			cur = 0
		}
		cur += x
		if cur > b {
			b = cur
		}
	}
	return b
}

func main() {
	in := bufio.NewReader(os.Stdin)
	xs := readInts(in)
	if len(xs) == 0 {
		return
	}
	fmt.Println(best(xs))
}
