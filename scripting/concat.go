package scripting

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// The `..` operator. gopher-lua's OP_CONCAT joins a whole chain such as
// s..s..s..s in one allocation before the script's context is looked at
// again, so a chain of large strings could allocate gigabytes that the
// memory watchdog only sees afterwards. compile therefore rewrites every
// chain, after parsing and before code generation, into a call of
// concatBuiltin, which checks the result's size first (vm.checkStringSize)
// and builds it with one allocation.
//
// The call keeps what the operator did, as Lua 5.1 does it: the operands
// are evaluated left to right (as a call's arguments are); strings and
// numbers (as "%.14g") are joined; otherwise the __concat metamethod of
// the pair at the right end is called, from right to left, as Lua 5.1's
// luaV_concat. The error of a bad operand is Lua 5.1's, with the name of
// the variable or field the operand came from ("attempt to concatenate
// local 'x' (a nil value)"), which the compiler knows and passes as the
// call's first argument, and its line is the one Lua 5.1 reports: that of
// the chain's last operand.

// concatBuiltin is the global the rewritten chains call. It is no Lua
// identifier, so no script can name it as a variable (or shadow it with a
// local); _G's read-only proxy shows it, and calling it does what `..`
// does.
const concatBuiltin = "concat operator"

// concatNameSep separates the operands' names in the call's first
// argument (a name never holds a NUL: Lua 5.1 prints it as a C string).
const concatNameSep = "\x00"

// concatOp is concatBuiltin: concatOp(names, v1, …, vn) is v1 .. … .. vn.
func (vm *VM) concatOp(L *lua.LState) int {
	top := L.GetTop()
	var local [16]lua.LValue
	vals := local[:0]
	plain, size := true, int64(0) // size: of the strings, while plain
	for i := 2; i <= top; i++ {
		v := L.Get(i)
		switch x := v.(type) {
		case lua.LString:
			size += int64(len(x))
		case lua.LNumber:
			size = -1 << 62 // numbers: joinStrings measures them
		default:
			plain = false
		}
		vals = append(vals, v)
	}
	if len(vals) == 0 { // only a script calling the global itself
		L.Push(lua.LString(""))
		return 1
	}
	if plain { // the common case: one join, no metamethod
		L.Push(vm.joinStrings(L, vals, size))
		return 1
	}
	last := len(vals) - 1
	for last > 0 {
		a, b := vals[last-1], vals[last]
		if isStringOrNumber(a) && isStringOrNumber(b) {
			// Join the longest run of strings and numbers that ends here.
			first := last - 1
			for first > 0 && isStringOrNumber(vals[first-1]) {
				first--
			}
			vals[first] = vm.joinStrings(L, vals[first:last+1], -1)
			last = first
			continue
		}
		mm := L.GetMetaField(a, "__concat")
		if mm == lua.LNil {
			mm = L.GetMetaField(b, "__concat")
		}
		if mm == lua.LNil {
			bad := last - 1
			if isStringOrNumber(a) {
				bad = last
			}
			concatError(L, vals[bad], bad)
		}
		if _, ok := mm.(*lua.LFunction); !ok && L.GetMetaField(mm, "__call") == lua.LNil {
			L.RaiseError("attempt to call a %s value", mm.Type().String()) // Lua 5.1's text, not gopher-lua's
		}
		L.Push(mm)
		L.Push(a)
		L.Push(b)
		L.Call(2, 1)
		vals[last-1] = L.Get(-1) // the result takes the left operand's place
		L.Pop(1)
		last--
	}
	L.Push(vals[0])
	return 1
}

func isStringOrNumber(v lua.LValue) bool {
	switch v.(type) {
	case lua.LString, lua.LNumber:
		return true
	}
	return false
}

// joinStrings joins strings and numbers, checking the size first; size
// is theirs when known (no numbers), else negative.
func (vm *VM) joinStrings(L *lua.LState, vals []lua.LValue, size int64) lua.LValue {
	var scratch [32]byte
	if size < 0 {
		size = 0
		for _, v := range vals {
			switch x := v.(type) {
			case lua.LString:
				size += int64(len(x))
			case lua.LNumber:
				size += int64(len(appendNumber(scratch[:0], float64(x))))
			}
		}
	}
	vm.checkStringSize(L, size)
	var b strings.Builder
	b.Grow(int(size))
	for _, v := range vals {
		switch x := v.(type) {
		case lua.LString:
			b.WriteString(string(x))
		case lua.LNumber:
			b.Write(appendNumber(scratch[:0], float64(x)))
		}
	}
	return lua.LString(b.String())
}

// appendNumber appends formatNumber(f) to dst without a string between.
func appendNumber(dst []byte, f float64) []byte {
	// An integer of at most 14 digits is its digits in "%.14g" (-0 is
	// "-0"): the common case, and much cheaper than the float formatter.
	if i := int64(f); float64(i) == f && i > -1e14 && i < 1e14 && (i != 0 || !math.Signbit(f)) {
		return strconv.AppendInt(dst, i, 10)
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(dst, formatNumber(f)...)
	}
	return strconv.AppendFloat(dst, f, 'g', 14, 64)
}

// concatError raises Lua 5.1's error for operand i, v, of a chain.
func concatError(L *lua.LState, v lua.LValue, i int) {
	var name string
	if names, ok := L.Get(1).(lua.LString); ok {
		if parts := strings.Split(string(names), concatNameSep); i < len(parts) {
			name = parts[i]
		}
	}
	if name == "" {
		L.RaiseError("attempt to concatenate a %s value", v.Type().String())
	}
	L.RaiseError("attempt to concatenate %s (a %s value)", name, v.Type().String())
}

// rewriteConcat replaces, in a parsed chunk, every chain of `..` by a
// call of concatBuiltin, and returns the chunk. A chunk with chains
// first copies the global into a local of the same name (no script can
// name it either), so that a chain costs a register move or an upvalue
// read rather than a lookup through the read-only globals' proxy. It
// takes one of the chunk's 200 registers.
func rewriteConcat(chunk []ast.Stmt) []ast.Stmt {
	var r concatRewriter
	r.enterFunc(nil)
	r.stmts(chunk)
	if !r.used {
		return chunk
	}
	global := &ast.IdentExpr{Value: concatBuiltin}
	alias := &ast.LocalAssignStmt{Names: []string{concatBuiltin}, Exprs: []ast.Expr{global}}
	global.SetLine(1)
	alias.SetLine(1)
	return append([]ast.Stmt{alias}, chunk...)
}

// concatRewriter walks a chunk, knowing which names are locals of which
// function, so that an operand's name says local, upvalue or global as
// Lua 5.1's error does. Scopes follow gopher-lua's compiler (which is
// what the names mean at run time): `local f = function` sees f inside.
type concatRewriter struct {
	funcs []concatScope // the enclosing functions, innermost last
	used  bool          // a chain was rewritten
}

// concatScope is one function's locals in scope, innermost last, and
// where each open block's locals begin.
type concatScope struct {
	names  []string
	blocks []int
}

func (r *concatRewriter) enterFunc(params []string) {
	r.funcs = append(r.funcs, concatScope{names: append([]string(nil), params...)})
}

func (r *concatRewriter) leaveFunc() { r.funcs = r.funcs[:len(r.funcs)-1] }

func (r *concatRewriter) enterBlock() {
	f := &r.funcs[len(r.funcs)-1]
	f.blocks = append(f.blocks, len(f.names))
}

func (r *concatRewriter) leaveBlock() {
	f := &r.funcs[len(r.funcs)-1]
	f.names = f.names[:f.blocks[len(f.blocks)-1]]
	f.blocks = f.blocks[:len(f.blocks)-1]
}

func (r *concatRewriter) declare(names ...string) {
	f := &r.funcs[len(r.funcs)-1]
	f.names = append(f.names, names...)
}

// kind is what a name is where it is used: "local", "upvalue" or "global".
func (r *concatRewriter) kind(name string) string {
	for i := len(r.funcs) - 1; i >= 0; i-- {
		for _, n := range r.funcs[i].names {
			if n == name {
				if i == len(r.funcs)-1 {
					return "local"
				}
				return "upvalue"
			}
		}
	}
	return "global"
}

// block walks stmts in a block of their own.
func (r *concatRewriter) block(stmts []ast.Stmt) {
	r.enterBlock()
	r.stmts(stmts)
	r.leaveBlock()
}

func (r *concatRewriter) stmts(stmts []ast.Stmt) {
	for _, s := range stmts {
		r.stmt(s)
	}
}

func (r *concatRewriter) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		r.exprs(s.Lhs)
		r.exprs(s.Rhs)
	case *ast.LocalAssignStmt:
		if len(s.Names) == 1 && len(s.Exprs) == 1 {
			if _, ok := s.Exprs[0].(*ast.FunctionExpr); ok {
				r.declare(s.Names...)
				r.exprs(s.Exprs)
				return
			}
		}
		r.exprs(s.Exprs)
		r.declare(s.Names...)
	case *ast.FuncCallStmt:
		s.Expr = r.expr(s.Expr)
	case *ast.DoBlockStmt:
		r.block(s.Stmts)
	case *ast.WhileStmt:
		s.Condition = r.expr(s.Condition)
		r.block(s.Stmts)
	case *ast.RepeatStmt:
		r.enterBlock() // the condition sees the body's locals
		r.stmts(s.Stmts)
		s.Condition = r.expr(s.Condition)
		r.leaveBlock()
	case *ast.IfStmt:
		s.Condition = r.expr(s.Condition)
		r.block(s.Then)
		r.block(s.Else)
	case *ast.NumberForStmt:
		s.Init = r.expr(s.Init)
		s.Limit = r.expr(s.Limit)
		s.Step = r.expr(s.Step)
		r.enterBlock()
		r.declare(s.Name)
		r.stmts(s.Stmts)
		r.leaveBlock()
	case *ast.GenericForStmt:
		r.exprs(s.Exprs)
		r.enterBlock()
		r.declare(s.Names...)
		r.stmts(s.Stmts)
		r.leaveBlock()
	case *ast.FuncDefStmt:
		var params []string
		if s.Name.Method != "" {
			params = []string{"self"}
			s.Name.Receiver = r.expr(s.Name.Receiver)
		} else {
			s.Name.Func = r.expr(s.Name.Func)
		}
		r.function(s.Func, params)
	case *ast.ReturnStmt:
		r.exprs(s.Exprs)
	}
}

func (r *concatRewriter) function(f *ast.FunctionExpr, self []string) {
	r.enterFunc(append(self, f.ParList.Names...))
	r.stmts(f.Stmts)
	r.leaveFunc()
}

func (r *concatRewriter) exprs(list []ast.Expr) {
	for i, e := range list {
		list[i] = r.expr(e)
	}
}

// expr walks e and returns what takes its place: a chain's call, or e.
func (r *concatRewriter) expr(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.StringConcatOpExpr:
		return r.concat(e)
	case *ast.LogicalOpExpr:
		e.Lhs, e.Rhs = r.expr(e.Lhs), r.expr(e.Rhs)
	case *ast.RelationalOpExpr:
		e.Lhs, e.Rhs = r.expr(e.Lhs), r.expr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		e.Lhs, e.Rhs = r.expr(e.Lhs), r.expr(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		e.Expr = r.expr(e.Expr)
	case *ast.UnaryNotOpExpr:
		e.Expr = r.expr(e.Expr)
	case *ast.UnaryLenOpExpr:
		e.Expr = r.expr(e.Expr)
	case *ast.AttrGetExpr:
		e.Object, e.Key = r.expr(e.Object), r.expr(e.Key)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			if f.Key != nil {
				f.Key = r.expr(f.Key)
			}
			f.Value = r.expr(f.Value)
		}
	case *ast.FuncCallExpr:
		if e.Func != nil {
			e.Func = r.expr(e.Func)
		}
		if e.Receiver != nil {
			e.Receiver = r.expr(e.Receiver)
		}
		r.exprs(e.Args)
	case *ast.FunctionExpr:
		r.function(e, nil)
	}
	return e
}

// concat turns the chain a .. b .. … (right-nested) into
// concatBuiltin(names, a, b, …).
func (r *concatRewriter) concat(e *ast.StringConcatOpExpr) ast.Expr {
	var operands []ast.Expr
	var cur ast.Expr = e
	for {
		c, ok := cur.(*ast.StringConcatOpExpr)
		if !ok {
			break
		}
		// A concatenation on the left was in parentheses: Lua 5.1 makes
		// it a value of its own too (a call here), with no name.
		operands = append(operands, r.expr(c.Lhs))
		cur = c.Rhs
	}
	operands = append(operands, r.expr(cur))
	names := make([]string, len(operands))
	for i, op := range operands {
		names[i] = r.operandName(op)
	}
	// The last argument of a call passes on all of a call's or a
	// vararg's values; an operand is one value.
	switch last := operands[len(operands)-1].(type) {
	case *ast.FuncCallExpr:
		last.AdjustRet = true
	case *ast.Comma3Expr:
		last.AdjustRet = true
	}
	r.used = true
	line := lastLine(operands[len(operands)-1])
	fn := &ast.IdentExpr{Value: concatBuiltin}
	desc := &ast.StringExpr{Value: strings.TrimRight(strings.Join(names, concatNameSep), concatNameSep)}
	call := &ast.FuncCallExpr{Func: fn, Args: append([]ast.Expr{desc}, operands...), AdjustRet: true}
	for _, n := range []ast.PositionHolder{fn, desc, call} {
		n.SetLine(line)
	}
	return call
}

// operandName is how Lua 5.1's error names an operand: "local 'x'",
// "upvalue 'x'", "global 'x'", "field 'k'" (a constant string key; '?'
// for any other), or "" for a value of no variable.
func (r *concatRewriter) operandName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.IdentExpr:
		return r.kind(e.Value) + " '" + e.Value + "'"
	case *ast.AttrGetExpr:
		if k, ok := e.Key.(*ast.StringExpr); ok {
			key, _, _ := strings.Cut(k.Value, "\x00")
			return "field '" + key + "'"
		}
		return "field '?'"
	}
	return ""
}

// lastLine is the line of e's last token as far as the tree tells it (a
// closing bracket on a later line is not in it): the line Lua 5.1 gives
// the instruction that ends a chain.
func lastLine(e ast.Expr) int {
	line := e.Line()
	up := func(sub ast.Expr) {
		if sub != nil {
			line = max(line, lastLine(sub))
		}
	}
	switch e := e.(type) {
	case *ast.FunctionExpr:
		line = max(line, e.LastLine())
	case *ast.LogicalOpExpr:
		up(e.Rhs)
	case *ast.RelationalOpExpr:
		up(e.Rhs)
	case *ast.ArithmeticOpExpr:
		up(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		up(e.Expr)
	case *ast.UnaryNotOpExpr:
		up(e.Expr)
	case *ast.UnaryLenOpExpr:
		up(e.Expr)
	case *ast.AttrGetExpr:
		up(e.Key)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			up(f.Key)
			up(f.Value)
		}
	case *ast.FuncCallExpr:
		up(e.Func)
		up(e.Receiver)
		for _, a := range e.Args {
			up(a)
		}
	}
	return line
}
