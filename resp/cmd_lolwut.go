package resp

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// LOLWUT [VERSION v] [args…], as redis 7.0: version 5 draws Georg Nees's
// Schotter in braille, version 6 a city skyline in terminal colours, and
// any other version (7.0's own included) only says "Redis ver. 7.0.15".
// The drawings are computed as Redis computes them, its float arithmetic
// included (float32 where Redis's C uses float), so that an output with no
// randomness in it (Schotter's first two rows of squares) is byte for
// byte Redis's; the random tilts and windows come from Go's generator.

func lolwutCommands() []*Command {
	return []*Command{
		{Name: "lolwut", Arity: -1, Flags: FlagReadonly | FlagFast, Group: "server", Since: "5.0.0",
			Summary: "Display some computer art and the Redis version", Run: cmdLolwut},
	}
}

// lolwutRandMax is glibc's RAND_MAX: rand() is in [0, RAND_MAX].
const lolwutRandMax = math.MaxInt32

func lolwutRand() int { return int(rand.Int32()) }

func cmdLolwut(c *Client, args [][]byte) {
	version := Version
	if len(args) >= 3 && argIs(args[1], "VERSION") {
		v, ok := c.intArg(args[2])
		if !ok {
			return
		}
		// Redis prints (unsigned int)v as "%u.0.0" and looks at its first
		// characters.
		version = strconv.FormatUint(uint64(uint32(v)), 10) + ".0.0"
		args = append([][]byte{args[0]}, args[3:]...)
	}
	switch {
	case strings.HasPrefix(version, "5.") && !strings.HasPrefix(version, "5.9"), strings.HasPrefix(version, "4.9"):
		lolwut5(c, args)
	case strings.HasPrefix(version, "6.") && !strings.HasPrefix(version, "6.9"), strings.HasPrefix(version, "5.9"):
		lolwut6(c, args)
	default:
		c.w.Verbatim("Redis ver. " + Version + "\n")
	}
}

// lolwutArgs parses up to len(vals) optional integer arguments after the
// command name into vals, each then clamped to [1, max[i]].
func (c *Client) lolwutArgs(args [][]byte, vals []int64, maxes []int64) bool {
	for i := range vals {
		if len(args) > i+1 {
			v, ok := c.intArg(args[i+1])
			if !ok {
				return false
			}
			vals[i] = v
		}
		vals[i] = max(1, min(vals[i], maxes[i]))
	}
	return true
}

// lwCanvas is Redis's lwCanvas: width×height pixels of one colour each.
type lwCanvas struct {
	width, height int
	pixels        []byte
}

func newCanvas(width, height int, bg byte) *lwCanvas {
	c := &lwCanvas{width: width, height: height, pixels: make([]byte, width*height)}
	for i := range c.pixels {
		c.pixels[i] = bg
	}
	return c
}

// set draws a pixel; outside the canvas it does nothing.
func (cv *lwCanvas) set(x, y int, color byte) {
	if x < 0 || x >= cv.width || y < 0 || y >= cv.height {
		return
	}
	cv.pixels[x+y*cv.width] = color
}

// get reads a pixel; outside the canvas it is 0.
func (cv *lwCanvas) get(x, y int) byte {
	if x < 0 || x >= cv.width || y < 0 || y >= cv.height {
		return 0
	}
	return cv.pixels[x+y*cv.width]
}

// line draws from x1,y1 to x2,y2 by Bresenham's algorithm.
func (cv *lwCanvas) line(x1, y1, x2, y2 int, color byte) {
	dx, dy := abs(x2-x1), abs(y2-y1)
	sx, sy := 1, 1
	if x1 >= x2 {
		sx = -1
	}
	if y1 >= y2 {
		sy = -1
	}
	err := dx - dy
	for {
		cv.set(x1, y1, color)
		if x1 == x2 && y1 == y2 {
			return
		}
		e2 := err * 2
		if e2 > -dy {
			err -= dy
			x1 += sx
		}
		if e2 < dx {
			err += dx
			y1 += sy
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// square draws a square centred on x,y with the given side and rotation,
// as Redis's lwDrawSquare: its corners are points of the circumscribed
// circle, in float (the size and the angle) and double (the sines).
func (cv *lwCanvas) square(x, y int, size, angle float32, color byte) {
	size = float32(float64(size) / 1.4142135623)
	size = float32(math.Round(float64(size)))
	var px, py [4]int
	k := float32(math.Pi/4 + float64(angle))
	for j := 0; j < 4; j++ {
		px[j] = int(math.Round(math.Sin(float64(k))*float64(size) + float64(x)))
		py[j] = int(math.Round(math.Cos(float64(k))*float64(size) + float64(y)))
		k = float32(float64(k) + math.Pi/2)
	}
	for j := 0; j < 4; j++ {
		cv.line(px[j], py[j], px[(j+1)%4], py[(j+1)%4], color)
	}
}

// schotter is Redis's lwDrawSchotter: squares_per_row × squares_per_col
// squares, tilted and shifted more and more at random from the third row.
func schotter(cols, perRow, perCol int) *lwCanvas {
	width := cols * 2
	padding := 0
	if width > 4 {
		padding = 2
	}
	side := float32(width-padding*2) / float32(perRow)
	height := int(side*float32(perCol) + float32(padding*2))
	cv := newCanvas(width, height, 0)
	for y := 0; y < perCol; y++ {
		for x := 0; x < perRow; x++ {
			sx := int(float32(x)*side + side/2 + float32(padding))
			sy := int(float32(y)*side + side/2 + float32(padding))
			var angle float32
			if y > 1 {
				r := func() float32 {
					return float32(lolwutRand()) / float32(lolwutRandMax) / float32(perCol) * float32(y)
				}
				r1, r2, r3 := r(), r(), r()
				if lolwutRand()%2 != 0 {
					r1 = -r1
				}
				if lolwutRand()%2 != 0 {
					r2 = -r2
				}
				if lolwutRand()%2 != 0 {
					r3 = -r3
				}
				angle = r1
				sx = int(float32(sx) + r2*side/3)
				sy = int(float32(sy) + r3*side/3)
			}
			cv.square(sx, sy, side, angle, 1)
		}
	}
	return cv
}

// renderBraille is Schotter's rendering: each 2×4 block of pixels one
// braille character, rows of blocks ended by a newline unless the block's
// first row is the canvas's last.
func renderBraille(cv *lwCanvas) string {
	var b strings.Builder
	for y := 0; y < cv.height; y += 4 {
		for x := 0; x < cv.width; x += 2 {
			bits := 0
			for _, p := range [...]struct{ dx, dy, bit int }{
				{0, 0, 0}, {0, 1, 1}, {0, 2, 2}, {1, 0, 3}, {1, 1, 4}, {1, 2, 5}, {0, 3, 6}, {1, 3, 7},
			} {
				if cv.get(x+p.dx, y+p.dy) != 0 {
					bits |= 1 << p.bit
				}
			}
			b.WriteRune(rune(0x2800 + bits))
		}
		if y != cv.height-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// lolwut5 is LOLWUT 5 [columns] [squares per row] [squares per column]
// (66, 8 and 12 by default; at most 1000, 200 and 200).
func lolwut5(c *Client, args [][]byte) {
	vals := []int64{66, 8, 12}
	if !c.lolwutArgs(args, vals, []int64{1000, 200, 200}) {
		return
	}
	art := renderBraille(schotter(int(vals[0]), int(vals[1]), int(vals[2])))
	c.w.Verbatim(art + "\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. " + Version + "\n")
}

// skyscraper is one building of LOLWUT 6's skyline.
type skyscraper struct {
	xoff, width, height int
	windows             bool
	color               byte
}

// draw is Redis's generateSkyscraper: a roof two pixels narrower on each
// side, and windows two pixels wide, of a random grey, away from the
// walls.
func (s skyscraper) draw(cv *lwCanvas) {
	starty := cv.height - 1
	endy := starty - s.height + 1
	for y := starty; y >= endy; y-- {
		for x := s.xoff; x < s.xoff+s.width; x++ {
			if y == endy && (x <= s.xoff+1 || x >= s.xoff+s.width-2) {
				continue
			}
			color := s.color
			if s.windows && x > s.xoff+1 && x < s.xoff+s.width-2 && y > endy+1 && y < starty-1 {
				relx, rely := x-(s.xoff+1), y-(endy+1)
				if relx/2%2 != 0 && rely%2 != 0 {
					for {
						color = byte(1 + lolwutRand()%2)
						if color != s.color {
							break
						}
					}
					if relx%2 != 0 {
						color = cv.get(x-1, y)
					}
				}
			}
			cv.set(x, y, color)
		}
	}
}

// skyline is Redis's generateSkyline: two rows of windowless buildings in
// the greys, the lighter behind, then black ones with windows.
func skyline(cv *lwCanvas) {
	for color := byte(2); color >= 1; color-- {
		for offset := -10; offset < cv.width; {
			offset += lolwutRand() % 8
			s := skyscraper{xoff: offset, width: 10 + lolwutRand()%9, color: color}
			if color == 2 {
				s.height = cv.height/2 + lolwutRand()%cv.height/2
			} else {
				s.height = cv.height/2 + lolwutRand()%cv.height/3
			}
			s.draw(cv)
			if color == 2 {
				offset += s.width / 2
			} else {
				offset += s.width + 1
			}
		}
	}
	for offset := -10; offset < cv.width; {
		offset += lolwutRand() % 8
		s := skyscraper{xoff: offset, width: 5 + lolwutRand()%14, windows: true}
		if s.width%4 != 0 {
			s.width += s.width % 3
		}
		s.height = cv.height/3 + lolwutRand()%cv.height/2
		s.draw(cv)
		offset += s.width + 5
	}
}

// lolwutColors are the terminal colours of LOLWUT 6's four greys.
var lolwutColors = [...]string{"0;30;40m", "0;90;100m", "0;37;47m", "0;97;107m"}

// lolwut6 is LOLWUT 6 [columns] [rows] (80 and 20 by default; at most 1000
// each): each pixel a space in its colour.
func lolwut6(c *Client, args [][]byte) {
	vals := []int64{80, 20}
	if !c.lolwutArgs(args, vals, []int64{1000, 1000}) {
		return
	}
	cv := newCanvas(int(vals[0]), int(vals[1]), 3)
	skyline(cv)
	var b strings.Builder
	for y := 0; y < cv.height; y++ {
		for x := 0; x < cv.width; x++ {
			color := cv.get(x, y)
			if int(color) >= len(lolwutColors) {
				color = 0 // Redis's "just for safety": black
			}
			b.WriteString("\x1b[" + lolwutColors[color] + " \x1b[0m")
		}
		if y != cv.height-1 {
			b.WriteByte('\n')
		}
	}
	b.WriteString("\nDedicated to the 8 bit game developers of past and present.\nOriginal 8 bit image from Plaguemon by hikikomori. Redis ver. " + Version + "\n")
	c.w.Verbatim(b.String())
}
