# play, captures, countlib, list_stones, is_legal, all_legal on 9x9 (GTP v2 section 6.3.3).
# list_stones/all_legal order is not specified: sets of 2 are matched in both orders.

boardsize 9
clear_board
komi 7.5

# Both colours, either colour twice in a row, colour and vertex case-insensitive.
1 play b E5
#? []
2 play white D5
#? []
3 play w D4
#? []
4 play B c3
#? []
5 play BLACK pass
#? []
6 play w PASS
#? []
7 list_stones black
#? [E5 C3|C3 E5]
8 list_stones white
#? [D5 D4|D4 D5]

# Occupied points are illegal for both colours.
10 play w E5
#? [illegal move]*
11 play b E5
#? [illegal move]*
12 is_legal w E5
#? [0]
13 is_legal b J9
#? [1]

# Single-stone suicide in the corner is illegal.
clear_board
play b A2
play b B1
20 play w A1
#? [illegal move]*
21 is_legal w A1
#? [0]
22 is_legal b A1
#? [1]

# Capture: White A1 in atari, Black B1 takes it.
clear_board
play w A1
play b A2
30 captures black
#? [0]
31 play b B1
#? []
32 captures black
#? [1]
33 captures white
#? [0]
34 list_stones white
#? []
# The captured point is empty again, but White A1 would be suicide now (no liberty, no capture).
35 is_legal w A1
#? [0]

# countlib = liberties of the chain at the vertex.
clear_board
play b E5
40 countlib E5
#? [4]
play w E6
41 countlib E5
#? [3]
42 countlib E6
#? [3]
play b D5
43 countlib E5
#? [5]
44 countlib D5
#? [5]
play b A1
45 countlib A1
#? [2]
play b J5
46 countlib J5
#? [3]

# Simple ko in the middle: Black E5 takes the white stone on D5; White cannot retake at once.
clear_board
play b C5
play b D6
play b D4
play w E6
play w E4
play w F5
play w D5
50 play b E5
#? []
51 captures black
#? [1]
52 is_legal w D5
#? [0]
53 play w D5
#? [illegal move]*
# After a ko threat pair elsewhere the retake is legal (a new whole-board position).
play w A9
play b A1
54 is_legal w D5
#? [1]
55 play w D5
#? []
56 captures white
#? [1]

# all_legal on 2x2: after Black A1 and B2 White has no legal point (A2 and B1 are suicide);
# Black may play A2 or B1. (Debatable: an engine could list 'pass'; ours prints vertices.)
boardsize 2
clear_board
play b A1
play b B2
60 all_legal w
#? []
61 all_legal b
#? [A2 B1|B1 A2]
62 is_legal w A2
#? [0]
clear_board
63 all_legal b
#? [((A1|A2|B1|B2) ){3}(A1|A2|B1|B2)]
