# Time control commands: time_settings and time_left (GTP v2 section 6.3.4) and the KGS
# extension kgs-time_settings none|absolute|byoyomi|canadian. Malformed ones are syntax errors.

1 time_settings 300 30 5
#? []
2 time_settings 0 5 1
#? []
3 time_settings 600 0 0
#? []
# byo-yomi time > 0 with 0 stones: the spec's "no time limits" form.
4 time_settings 0 1 0
#? []
5 time_left b 100 0
#? []
6 time_left white 20 3
#? []

10 time_settings 300
#? [syntax error.*]*
11 time_settings 300 30
#? [syntax error.*]*
12 time_settings a b c
#? [syntax error.*]*
13 time_settings 300 30 5 7
#? [syntax error.*]*
14 time_left b 100
#? [syntax error.*]*
15 time_left x 100 0
#? [syntax error.*]*
16 time_left b ten 0
#? [syntax error.*]*

20 kgs-time_settings none
#? []
21 kgs-time_settings absolute 300
#? []
22 kgs-time_settings byoyomi 300 30 5
#? []
23 kgs-time_settings canadian 300 30 5
#? []
24 kgs-time_settings
#? [syntax error.*]*
25 kgs-time_settings bogus 1 2 3
#? [syntax error.*]*
26 kgs-time_settings absolute
#? [syntax error.*]*
27 kgs-time_settings byoyomi 300
#? [syntax error.*]*
28 kgs-time_settings canadian 300 30
#? [syntax error.*]*
29 kgs-time_settings none 5
#? [syntax error.*]*

# The engine still plays after all that.
boardsize 9
clear_board
30 play b E5
#? []
