package commanddocs

import (
	"encoding/json"
	"testing"
)

// Parse turns Redis's JSON into what redis-server's generated table holds.
func TestParse(t *testing.T) {
	file := `{"LIST": {"summary": "S", "since": "1.0.0", "group": "sorted_set", "container": "THING",
		"command_tips": ["NONDETERMINISTIC_OUTPUT"], "doc_flags": ["SYSCMD", "DEPRECATED"],
		"key_specs": [{"flags": ["ACCESS", "RO"], "begin_search": {"keyword": {"keyword": "STORE", "startfrom": -2}},
			"find_keys": {"keynum": {"keynumidx": 0, "firstkey": 1, "step": 1}}},
			{"flags": ["OW"], "begin_search": {"unknown": null}, "find_keys": {"unknown": null}}],
		"arguments": [{"name": "Key_Or_Empty", "type": "oneof", "arguments": [
			{"name": "key", "type": "key", "key_spec_index": 0, "multiple": true, "optional": true},
			{"name": "empty", "type": "pure-token", "token": "\"\""}]},
			{"name": "b", "type": "block", "token": "with"}]},
		"THING": {"summary": "C", "group": "sorted_set"}}`
	tbl := Table{}
	if err := tbl.Parse([]byte(file)); err != nil {
		t.Fatal(err)
	}
	tbl.Finish()
	got, _ := json.Marshal(tbl["thing|list"])
	want := `{"summary":"S","since":"1.0.0","group":"sorted-set","doc_flags":["deprecated","syscmd"],` +
		`"arguments":[{"name":"key_or_empty","type":"oneof","arguments":[{"name":"key","type":"key","key_spec_index":0,"flags":["optional","multiple"]},` +
		`{"name":"empty","type":"pure-token","token":""}]},{"name":"b","type":"block","token":"WITH"}],` +
		`"key_specs":[{"flags":["RO","access"],"bs":"keyword","keyword":"STORE","startfrom":-2,"fk":"keynum","firstkey":1,"keystep":1},` +
		`{"flags":["OW"],"bs":"unknown","fk":"unknown"}],"tips":["nondeterministic_output"]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if tbl["thing"] == nil || tbl["thing"].Group != "sorted-set" {
		t.Errorf("container: %+v", tbl["thing"])
	}
	if err := (Table{}).Parse([]byte(`{"X": {"doc_flags": ["NOPE"]}}`)); err == nil {
		t.Error("an unknown flag was accepted")
	}
}

// The embedded table parses and holds the commands' docs.
func TestEmbedded(t *testing.T) {
	d := Lookup("georadius")
	if d == nil || len(d.KeySpecs) != 3 || d.KeySpecs[1].Keyword != "STORE" || d.KeySpecs[2].Keyword != "STOREDIST" {
		t.Fatalf("georadius: %+v", d)
	}
	if len(All()) < 300 {
		t.Errorf("%d commands", len(All()))
	}
}
