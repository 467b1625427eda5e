// process.exit()
/* eval("x") */ x = 1 <!-- eval
--> require("fs")
return "child_process"