# Corner cases of gogui-regress 1.6.0 that `tengen regress` reproduces; scripts/regress_diff.py
# runs both over these files with the fake_gtp example engine (echo TEXT / fail TEXT).
name
1 echo a
#? [a]
2 echo a
#? [b]
3 echo a
#? [!b]
4 echo a
#? [!a]
5 echo a
#? [a]*
6 echo a
#? [b]*
7 fail a
#? [a]
8 fail a
#? [a]*
9 fail a
#? [!a]*
# Numbered without a pattern: silent pass, or 'unexpected FAIL' (not in the exit status).
10 fail a
11 echo a
# Set-up commands: failures unreported, but a pattern makes them test -1.
fail setup
echo b
#? [b]
fail c
#? [c]
12 echo   a   b  
#? [a b]
13 showboard
#? [A B\n2 \. \. 2.*]
14 showboard
#? [.*^1 \. \. 1$.*]
15 echo x
#?  [ x ]  
16 echo x
#? [! x]
17 echo a]b
#? [a]b]
-3 echo z
#? [z]
+4 echo z
#? [z]
18 echo x
#?
19 fail x
#? [*]
20 echo x
#? [(?=x)x|y]
21 echo x
#? [X]
5
#? [.*]
