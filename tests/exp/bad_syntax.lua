-- syntax error on line 3
return {
  name = "x" testbed = "local",
}
