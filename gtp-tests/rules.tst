# Chinese rules as the engine plays them: no suicide, positional superko, area counting.
# final_score removes stones it judges dead, so scored positions below have only chains
# that are clearly alive (two real eyes) or are the only chains left.

boardsize 9
clear_board

# Snapback: White {A2 B2 C2 C1} has liberties A1 and B1. Black throws in at B1, White
# takes it with A1, and Black B1 again captures the five white stones (not a ko).
play b A3
play b B3
play b C3
play b D2
play b D1
play w A2
play w B2
play w C2
play w C1
1 play b B1
#? []
2 play w A1
#? []
3 captures white
#? [1]
# B1 has no empty neighbour now, but it captures: legal although it looks like suicide.
4 is_legal b B1
#? [1]
5 play b B1
#? []
6 captures black
#? [5]
7 list_stones white
#? []
8 countlib B1
#? [3]

# A move with no liberty that captures two separate stones is legal.
clear_board
play w A2
play w B1
play b A3
play b B2
play b C1
10 play b A1
#? []
11 captures black
#? [2]
12 list_stones white
#? []

# Multi-stone suicide is refused: Black {A1 A2} would lose its last liberty B1.
clear_board
play w A3
play w B2
play w C1
play b A2
play b A1
20 is_legal b B1
#? [0]
21 play b B1
#? [illegal move]*
22 list_stones black
#? [A1 A2|A2 A1]
# White B1 captures the two black stones instead.
23 play w B1
#? []
24 captures white
#? [2]

# Positional superko with two kos and free move order (GTP lets either colour move):
# ko 1 (white D5 inside black C5 D6 D4, black takes at E5) and ko 2 three lines higher
# (white D8 inside black C8 D9 D7, black takes at E8). Black takes both, White retakes
# ko 1 (legal: the last capture was elsewhere), then retaking ko 2 would recreate the
# position before Black's first capture. Simple ko allows it; positional superko does not.
clear_board
play b C5
play b D6
play b D4
play w E6
play w E4
play w F5
play w D5
play b C8
play b D9
play b D7
play w E9
play w E7
play w F8
play w D8
30 play b E5
#? []
31 play b E8
#? []
32 play w D5
#? []
33 is_legal w D8
#? [0]
34 play w D8
#? [illegal move]*
# A new stone anywhere makes the retake legal again.
play b A1
35 play w D8
#? []

# Area counting. Empty board: nothing on it, komi decides.
boardsize 9
clear_board
komi 7.5
40 final_score
#? [W\+7\.5]

# Integral komi and an even count print 0 (no sign, no decimals).
komi 0
41 final_score
#? [0]

# 4x4, both sides one chain with two one-point eyes: 6 stones + 2 eyes each.
boardsize 4
clear_board
play b B4
play b A3
play b B3
play b A2
play b B2
play b B1
play w C4
play w C3
play w D3
play w C2
play w D2
play w C1
komi 0
42 final_score
#? [0]
komi 0.5
43 final_score
#? [W\+0\.5]

# 5x5: Black owns columns A-C (12 stones + 3 eyes), White D-E (7 stones + 3 eyes).
boardsize 5
clear_board
play b B5
play b C5
play b A4
play b B4
play b C4
play b B3
play b C3
play b A2
play b B2
play b C2
play b B1
play b C1
play w D5
play w D4
play w E4
play w D3
play w D2
play w E2
play w D1
komi 0
50 final_score
#? [B\+5]
komi 2.5
51 final_score
#? [B\+2\.5]
komi 7.5
52 final_score
#? [W\+2\.5]

# Seki on 4x4: Black (7 stones) and White (7 stones) share the liberties B3 and C2; whoever
# fills one is captured. Both chains live and the shared points belong to nobody: 7 - 7.
# (Debatable only if the engine's dead-stone judgement misreads the seki.)
boardsize 4
clear_board
play b A4
play b B4
play b C4
play b D4
play b A3
play b C3
play b D3
play w A2
play w B2
play w D2
play w A1
play w B1
play w C1
play w D1
komi 0.5
60 final_score
#? [W\+0\.5]
61 is_legal b B3
#? [1]
