# A regex that does not compile stops the run, when a success reply meets it.
1 echo a
#? [a]
2 fail a
#? [?a]
3 echo a
#? [?a]
4 echo a
#? [a]
