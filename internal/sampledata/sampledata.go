// Package sampledata makes realistic-looking values for the compression
// tests and benchmarks: JSON documents as web APIs return them, HTML
// pages, and already-compressed bytes (gzip output, random bytes). Values
// are deterministic for a seed, and exactly the size asked for (JSON and
// HTML are cut there, which does not matter to a compressor).
package sampledata

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Kind is a family of values.
type Kind int

// Kinds of values.
const (
	JSON   Kind = iota // API-style JSON documents
	HTML               // web pages
	Gzip               // gzip output of JSON (already compressed)
	Random             // uniformly random bytes
)

// Kinds lists every kind, for table-driven benchmarks.
var Kinds = []Kind{JSON, HTML, Gzip, Random}

func (k Kind) String() string {
	return [...]string{"json", "html", "gzip", "random"}[k]
}

// Make returns a value of kind k of exactly size bytes, seeded by seed.
func Make(k Kind, size int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, uint64(k)+1))
	switch k {
	case JSON:
		return jsonDoc(r, size)
	case HTML:
		return htmlPage(r, size)
	case Gzip:
		return gzipped(r, size)
	}
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

var (
	firstNames = []string{"Olivia", "Liam", "Emma", "Noah", "Amelia", "Oliver", "Ava", "Elijah", "Sophia", "Lucas",
		"Mia", "Mateo", "Isabella", "Levi", "Harper", "Yuki", "Chen", "Fatima", "Arjun", "Zoe"}
	lastNames = []string{"Smith", "Johnson", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez", "Hernandez",
		"Lopez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Nguyen", "Kim", "Patel", "Müller", "Rossi"}
	cities = []string{"Berlin", "Lisbon", "Austin", "Osaka", "Toronto", "Nairobi", "Lyon", "Porto", "Denver", "Seoul"}
	words  = strings.Fields(`the of and to in is that for it as with was on be by this are from or at an have not
		which but all were when we there can one more if out so what up about time into has only other new some could
		them these two may then first any like now my such make over our even most me state after also made many did
		must before back see through way where get much go well your know should down work year because come people
		just say each those take day good how long little use very great world own high old under last never us server
		cache value request latency replica shard memory cluster product order customer invoice shipping payment`)
	tags     = []string{"new", "sale", "premium", "eco", "limited", "bestseller", "gift", "bundle", "clearance", "outlet"}
	statuses = []string{"pending", "paid", "shipped", "delivered", "cancelled", "refunded"}
)

func pick(r *rand.Rand, list []string) string { return list[r.IntN(len(list))] }

func sentence(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(pick(r, words))
	}
	return b.String()
}

// jsonDoc writes an API response: {"data":[orders...],"meta":{...}}.
func jsonDoc(r *rand.Rand, size int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"request_id":"%016x","api_version":"2024-06-01","data":[`, r.Uint64())
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		first, last := pick(r, firstNames), pick(r, lastNames)
		fmt.Fprintf(&b, `{"id":%d,"uuid":"%08x-%04x-%04x-%04x-%012x","status":"%s","created_at":"2024-%02d-%02dT%02d:%02d:%02dZ",`,
			100000+r.IntN(900000), r.Uint32(), r.IntN(1<<16), r.IntN(1<<16), r.IntN(1<<16), r.Uint64()>>16,
			pick(r, statuses), 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60))
		fmt.Fprintf(&b, `"customer":{"name":"%s %s","email":"%s.%s%d@example.com","address":{"street":"%d %s Street","city":"%s","zip":"%05d"}},`,
			first, last, strings.ToLower(first), strings.ToLower(last), r.IntN(100), 1+r.IntN(999), pick(r, lastNames), pick(r, cities), r.IntN(100000))
		b.WriteString(`"items":[`)
		for j, n := 0, 1+r.IntN(3); j < n; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"sku":"SKU-%06d","title":"%s","quantity":%d,"unit_price":%d.%02d,"tags":["%s","%s"]}`,
				r.IntN(1000000), sentence(r, 3), 1+r.IntN(5), r.IntN(500), r.IntN(100), pick(r, tags), pick(r, tags))
		}
		fmt.Fprintf(&b, `],"note":"%s","paid":%t,"total":%d.%02d}`, sentence(r, 6+r.IntN(10)), r.IntN(2) == 0, r.IntN(2000), r.IntN(100))
	}
	fmt.Fprintf(&b, `],"meta":{"page":1,"per_page":50,"total":%d}}`, r.IntN(10000))
	return b.Bytes()[:size]
}

// htmlPage writes a web page: head, navigation, articles, a footer.
func htmlPage(r *rand.Rand, size int) []byte {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" +
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<link rel=\"stylesheet\" href=\"/static/css/main.%08x.css\">\n"+
		"<script defer src=\"/static/js/app.%08x.js\"></script>\n</head>\n<body class=\"page page-article\">\n", sentence(r, 5), r.Uint32(), r.Uint32())
	b.WriteString("<header class=\"site-header\"><nav class=\"nav\"><ul class=\"nav-list\">\n")
	for i := 0; i < 6; i++ {
		w := pick(r, words)
		fmt.Fprintf(&b, "<li class=\"nav-item\"><a class=\"nav-link\" href=\"/%s\">%s</a></li>\n", w, strings.ToUpper(w[:1])+w[1:])
	}
	b.WriteString("</ul></nav></header>\n<main id=\"content\" class=\"container\">\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "<article class=\"card\" id=\"post-%d\">\n<h2 class=\"card-title\"><a href=\"/posts/%d-%s\">%s</a></h2>\n",
			r.IntN(100000), r.IntN(100000), pick(r, words), sentence(r, 6))
		fmt.Fprintf(&b, "<p class=\"meta\">By <span class=\"author\">%s %s</span> on <time datetime=\"2024-%02d-%02d\">%d %s</time></p>\n",
			pick(r, firstNames), pick(r, lastNames), 1+r.IntN(12), 1+r.IntN(28), 1+r.IntN(28), pick(r, cities))
		for p, n := 0, 1+r.IntN(3); p < n; p++ {
			fmt.Fprintf(&b, "<p>%s.</p>\n", sentence(r, 20+r.IntN(30)))
		}
		b.WriteString("<ul class=\"tags\">")
		for t := 0; t < 3; t++ {
			tag := pick(r, tags)
			fmt.Fprintf(&b, "<li><a class=\"tag\" href=\"/tags/%s\">#%s</a></li>", tag, tag)
		}
		b.WriteString("</ul>\n</article>\n")
	}
	b.WriteString("</main>\n<footer class=\"site-footer\"><p>&copy; 2024</p></footer>\n</body>\n</html>\n")
	return b.Bytes()[:size]
}

// gzipped returns gzip output of JSON documents, size bytes of it.
func gzipped(r *rand.Rand, size int) []byte {
	var b bytes.Buffer
	for b.Len() < size {
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write(jsonDoc(r, 4*size+1024))
		_ = zw.Close()
	}
	return b.Bytes()[:size]
}
