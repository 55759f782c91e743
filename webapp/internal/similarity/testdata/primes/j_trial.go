package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	var n int
	fmt.Fscan(bufio.NewReader(os.Stdin), &n)
	primes := []int{}
outer:
	for x := 2; x <= n; x++ {
		for _, p := range primes {
			if p*p > x {
				break
			}
			if x%p == 0 {
				continue outer
			}
		}
		primes = append(primes, x)
	}
	fmt.Fprintln(w, len(primes))
}
