package main

import "fmt"

func sieve(n int) []bool {
	composite := make([]bool, n+1)
	for i := 2; i*i <= n; i++ {
		if composite[i] {
			continue
		}
		for j := i * i; j <= n; j += i {
			composite[j] = true
		}
	}
	return composite
}

func count(composite []bool) int {
	c := 0
	for i := 2; i < len(composite); i++ {
		if !composite[i] {
			c++
		}
	}
	return c
}

func main() {
	var n int
	fmt.Scan(&n)
	if n < 2 {
		fmt.Println(0)
		return
	}
	fmt.Println(count(sieve(n)))
}
