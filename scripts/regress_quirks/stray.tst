# A pattern line after a blank or comment line stops the run.
1 echo a
#? [a]
2 echo a

#? [a]
3 echo a
#? [a]
