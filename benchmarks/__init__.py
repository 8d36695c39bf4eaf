"""Speed and quality benchmarks: runnable scripts that print tables of medians and ratios."""
