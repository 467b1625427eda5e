// node-pid.js: the pid of the Node process whose inspector evaluates this,
// or -1. In the main process, not a page.
//
// stw-session-manager-inject.c asks each inspector it finds listening on
// the endpoint's listener for this (Runtime.evaluate, by value), and uses
// the inspector only when the answer is the pid it looked for.
typeof process === 'object' && process ? process.pid : -1
