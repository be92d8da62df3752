# Malformed pattern lines stop the run.
1 echo a
#? [a]
2 echo a
#? [a] *
3 echo a
#? [a]
