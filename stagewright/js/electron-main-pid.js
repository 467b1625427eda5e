// electron-main-pid.js: the pid of the Electron main process whose
// inspector evaluates this, or -1 for any other Node process. In the main
// process, not a page.
//
// stw-session-manager-inject.c asks this of the inspectors of the
// listener's ancestors: an ancestor counts only as an Electron main
// process (process.type 'browser').
typeof process === 'object' && process && process.versions &&
  typeof process.versions.electron === 'string' && process.type === 'browser'
  ? process.pid : -1
