# quit answers an empty success, then the engine exits (the runner's own quit at the end
# of the file finds it gone, which is fine).
1 name
#? [Tengen]
2 quit
#? []
