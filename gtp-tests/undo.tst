# undo (GTP v2 section 6.3.3) and GNU Go's gg-undo N extension.

boardsize 9
clear_board
1 undo
#? [cannot undo]*
play b E5
2 undo
#? []
3 list_stones black
#? []
4 undo
#? [cannot undo]*

# Several moves, undone one at a time; passes are moves too.
play b E5
play w D5
play b pass
10 undo
#? []
11 list_stones white
#? [D5]
12 undo
#? []
13 list_stones white
#? []
14 list_stones black
#? [E5]

# Undo restores captured stones and the capture count.
clear_board
play w A1
play b A2
play b B1
20 captures black
#? [1]
21 undo
#? []
22 captures black
#? [0]
23 list_stones white
#? [A1]
24 list_stones black
#? [A2]

# clear_board empties the history.
play b E5
clear_board
30 undo
#? [cannot undo]*

# gg-undo N takes back N moves; more than the history fails and changes nothing.
play b E5
play w D5
play b C5
40 gg-undo 2
#? []
41 list_stones black
#? [E5]
42 list_stones white
#? []
43 gg-undo 5
#? [cannot undo]*
44 list_stones black
#? [E5]
45 gg-undo 1
#? []
46 list_stones black
#? []

# Undo after a ko capture: the captured stone comes back and the retake rule resets.
clear_board
play b C5
play b D6
play b D4
play w E6
play w E4
play w F5
play w D5
play b E5
50 play w D5
#? [illegal move]*
51 undo
#? []
52 list_stones white
#? [.*D5.*]
53 is_legal b E5
#? [1]
