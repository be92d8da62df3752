# The move generator and the counting commands: genmove / reg_genmove, final_status_list,
# final_score after dead-stone removal, cputime. Run with the default seed.

# A settled 7x7 position: Black owns rows 1-4 with two eyes (A1-A3, G1-G3), White owns
# rows 5-7 with two eyes (A6-A7, G6-G7). White D2 and Black D6 are dead inside.
boardsize 7
komi 0
clear_board
play b A4
play b B4
play b C4
play b D4
play b E4
play b F4
play b G4
play b B1
play b B2
play b B3
play b F1
play b F2
play b F3
play w A5
play w B5
play w C5
play w D5
play w E5
play w F5
play w G5
play w B6
play w B7
play w F6
play w F7
play w D2
play b D6

# One chain per line.
10 final_status_list dead
#? [(D2\nD6|D6\nD2)]
11 final_status_list seki
#? []
12 final_status_list alive
#? [(?s)(?=.*A4 B4 C4 D4 E4 F4 G4)(?=.*A5 B5 C5 D5 E5 F5 G5).*]
13 final_status_list
#? [syntax error]*
14 final_status_list undead
#? [syntax error]*
# Black: 28 points (rows 1-4), White: 21 (rows 5-7), dead stones removed.
15 final_score
#? [B\+7]
16 komi 6.5
#? []
17 final_score
#? [B\+0\.5]
18 komi 8
#? []
19 final_score
#? [W\+1]
komi 7
20 final_score
#? [0]

# reg_genmove answers a legal move but does not play it.
30 reg_genmove b
#? [[A-G][1-7]|pass]
31 list_stones black
#? [D6 A4 B4 C4 D4 E4 F4 G4 B3 F3 B2 F2 B1 F1]
# Neither side fills its own eyes: the only points left for Black are in White's area
# or inside its own area next to the white stone.
32 reg_genmove white
#? [[A-G][1-7]|pass]
33 reg_genmove x
#? [syntax error]*

# genmove plays the move it answers: the stone count goes up by one.
clear_board
40 genmove black
#? [[A-G][1-7]]
41 list_stones black
#? [[A-G][1-7]]
42 genmove w
#? [[A-G][1-7]]
43 list_stones white
#? [[A-G][1-7]]
44 genmove
#? [syntax error]*

# When every point left is an own eye, genmove passes.
boardsize 3
clear_board
play b A1
play b A2
play b A3
play b B2
play b C1
play b C2
play b C3
50 genmove b
#? [pass]
# White may not play the single-point eyes (suicide): it passes too.
51 reg_genmove w
#? [pass]
# A 2x2 board with one stone per side: every move would be suicide or an own eye.
boardsize 2
clear_board
play b A1
play w B2
52 genmove b
#? [pass|A2|B1]

# cputime: seconds as a float.
60 cputime
#? [\d+(\.\d+)?]
61 cputime extra
#? [syntax error]*
