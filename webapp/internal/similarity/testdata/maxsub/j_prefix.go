package main

import "fmt"

func main() {
	var n int
	fmt.Scan(&n)
	var sum, minPrefix int64
	answer := int64(-1 << 62)
	for i := 0; i < n; i++ {
		var x int64
		fmt.Scan(&x)
		sum += x
		if sum-minPrefix > answer {
			answer = sum - minPrefix
		}
		if sum < minPrefix {
			minPrefix = sum
		}
	}
	fmt.Println(answer)
}
