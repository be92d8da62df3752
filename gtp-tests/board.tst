# boardsize, clear_board, komi, showboard (GTP v2 sections 6.3.2 and 6.3.6).
# Sizes 2..=25 are accepted (letters A..Z without I give 25 columns).

1 boardsize 2
#? []
2 boardsize 9
#? []
3 boardsize 19
#? []
4 boardsize 25
#? []
5 boardsize 1
#? [unacceptable size]*
6 boardsize 26
#? [unacceptable size]*
7 boardsize 0
#? [unacceptable size]*
8 boardsize 1000
#? [unacceptable size]*

# A refused size leaves the board as it was (25x25 here): Z25 is on the board.
clear_board
10 play b Z25
#? []
11 list_stones black
#? [Z25]
12 play w a1
#? []
13 list_stones white
#? [A1]

# clear_board empties the board.
14 clear_board
#? []
15 list_stones black
#? []
16 list_stones white
#? []

# 2x2 is the smallest board.
boardsize 2
clear_board
20 play b B2
#? []
21 list_stones black
#? [B2]

# Komi survives boardsize and clear_board (the spec does not let them change it).
# Area score of an empty board = 0 - komi, nothing can be dead.
komi 6.5
boardsize 9
clear_board
30 final_score
#? [W\+6\.5]
komi 7.5
clear_board
31 final_score
#? [W\+7\.5]
boardsize 13
32 clear_board
#? []
33 final_score
#? [W\+7\.5]
34 komi -3.5
#? []
35 final_score
#? [B\+3\.5]
komi 0
36 final_score
#? [0]

# showboard succeeds (its format is free); the negated failure pattern only rejects '?'.
boardsize 9
clear_board
play b E5
40 showboard
#? [.*]
boardsize 25
clear_board
41 showboard
#? [.*]
