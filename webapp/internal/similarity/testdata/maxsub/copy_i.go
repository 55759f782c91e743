package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	reader := bufio.NewReader(os.Stdin)
	values := load(reader)
	if len(values) == 0 {
		return
	}
	fmt.Println(maxRun(values))
}

func maxRun(values []int64) int64 {
	top, acc := values[0], int64(0)
	for _, v := range values {
		if acc < 0 {
			acc = 0
		}
		acc += v
		if acc > top {
			top = acc
		}
	}
	return top
}

func load(reader *bufio.Reader) []int64 {
	var count int
	fmt.Fscan(reader, &count)
	values := make([]int64, count)
	for k := range values {
		fmt.Fscan(reader, &values[k])
	}
	return values
}
