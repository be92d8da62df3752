# loadsgf and printsgf (GTP v2 section 6.3.7: 'loadsgf FILE N' = the position before move N).
# Files are relative to this folder (the runner starts the engine here).
# sgf/game9.sgf: 9x9, B E5, W D7, B C3, W G7.

1 loadsgf sgf/game9.sgf
#? [.*]
2 list_stones black
#? [E5 C3|C3 E5]
3 list_stones white
#? [D7 G7|G7 D7]

# Position before move 3: B E5 and W D7 only.
4 loadsgf sgf/game9.sgf 3
#? [.*]
5 list_stones black
#? [E5]
6 list_stones white
#? [D7]

# Before move 1: the empty board, but the size comes from the file.
boardsize 19
9 loadsgf sgf/game9.sgf 1
#? [.*]
10 list_stones black
#? []
11 printsgf
#? [.*SZ\[9\].*]

# sgf/capture5.sgf (5x5): B A4, W C3, B B5, W D2, B A5: no capture, all stones stay.
12 loadsgf sgf/capture5.sgf
#? [.*]
13 list_stones black
#? [(A4|B5|A5)( (A4|B5|A5)){2}]

# Files that cannot be loaded: missing, not SGF, truncated, a move onto an occupied point.
20 loadsgf sgf/no_such_file.sgf
#? [cannot load file]*
21 loadsgf sgf/not_sgf.sgf
#? [cannot load file]*
22 loadsgf sgf/truncated.sgf
#? [cannot load file]*
23 loadsgf sgf/occupied.sgf
#? [cannot load file]*
24 loadsgf
#? [syntax error.*]*

# printsgf: the game as SGF with size, komi and the moves in order.
boardsize 9
clear_board
komi 5.5
play b E5
play w D7
30 printsgf
#? [.*SZ\[9\].*]
31 printsgf
#? [.*KM\[5\.5\].*]
32 printsgf
#? [.*B\[ee\].*W\[dc\].*]

# Round trip: printsgf FILE writes the game, loadsgf FILE reads it back (the file goes to
# /tmp so that the test folder stays clean).
40 printsgf /tmp/tengen-regress-roundtrip.sgf
#? [.*]
boardsize 13
clear_board
41 loadsgf /tmp/tengen-regress-roundtrip.sgf
#? [.*]
42 list_stones black
#? [E5]
43 list_stones white
#? [D7]
44 printsgf
#? [.*SZ\[9\].*KM\[5\.5\].*|.*KM\[5\.5\].*SZ\[9\].*]
