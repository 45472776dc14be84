//go:build !aggregates

package compat

// withAggregates is false until the Redis data types exist (issue 3): see
// cases_aggregates_test.go.
const withAggregates = false
