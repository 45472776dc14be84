// Command gen writes commanddocs/docs.json: the documentation of every
// command Tandem's Redis table serves, read from redis-server 7.0.15's
// src/commands/*.json in a Redis git repository.
//
//	go run ./resp/commanddocs/gen -git /work/.mirror/redis+redis/repo -out resp/commanddocs/docs.json
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"

	"github.com/tandemkv/tandem/resp"
	"github.com/tandemkv/tandem/resp/commanddocs"
)

func main() {
	gitDir := flag.String("git", envOr("REDIS_GIT_DIR", "/work/.mirror/redis+redis/repo"), "Redis git directory")
	ref := flag.String("ref", "7.0.15", "Redis version tag")
	out := flag.String("out", "docs.json", "file to write")
	flag.Parse()
	if err := run(*gitDir, *ref, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func git(dir string, args ...string) ([]byte, error) {
	out, err := exec.Command("git", append([]string{"--git-dir=" + dir}, args...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return out, nil
}

func run(gitDir, ref, out string) error {
	list, err := git(gitDir, "ls-tree", "--name-only", ref, "src/commands/")
	if err != nil {
		return err
	}
	all := commanddocs.Table{}
	for _, path := range strings.Fields(string(list)) {
		if !strings.HasSuffix(path, ".json") {
			continue
		}
		data, err := git(gitDir, "show", ref+":"+path)
		if err != nil {
			return err
		}
		if err := all.Parse(data); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	all.Finish()

	var names []string
	for _, cmd := range resp.Commands() {
		names = append(names, cmd.Name)
		for _, sc := range cmd.Subcommands {
			names = append(names, sc.Name)
		}
	}
	sort.Strings(names)
	kept := names[:0]
	for _, n := range names {
		if all[n] == nil { // newer than redis 7.0.15: the table's own summary serves
			fmt.Fprintf(os.Stderr, "gen: redis %s has no command %q, left out\n", ref, n)
			continue
		}
		kept = append(kept, n)
	}
	names = kept
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, n := range names {
		d := all[n]
		k, _ := json.Marshal(n)
		v, err := json.Marshal(d)
		if err != nil {
			return err
		}
		sep := ",\n"
		if i == len(names)-1 {
			sep = "\n"
		}
		fmt.Fprintf(&b, "%s:%s%s", k, v, sep)
	}
	b.WriteString("}\n")
	return os.WriteFile(out, b.Bytes(), 0o644)
}
