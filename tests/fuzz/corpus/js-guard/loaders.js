process.getBuiltinModule('vm').runInThisContext("1");
process[`getBuiltin${'Module'}`]('fs');
m['create' + 'Require']('/');
new vm.Script('1'); vm.compileFunction('x'); vm.runInNewContext('1', {});
m._load('fs'); x._linkedBinding('y');
const { [k]: p } = globalThis; ({ a, [k]: q } = (window));
