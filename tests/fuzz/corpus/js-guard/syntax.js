class C { #x = 1; static { this.y = 2 } async *m() { yield /re/; await /x/ } }
function f() { var await = 2; return await / 2 }
label: for (const [k, v] of Object.entries(o)) { a++ / 2; b
++/re/.lastIndex }