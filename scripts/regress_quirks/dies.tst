# An engine that dies stops the run.
1 echo a
#? [a]
2 die
#? []
3 echo a
#? [a]
