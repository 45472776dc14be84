package main

// charts returns the SVG charts of a run, by file name.
func charts(rs []Result) map[string]string { return nil }
