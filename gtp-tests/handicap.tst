# Handicap (GTP v2 section 4.1.1 table, 6.3.3 commands) and Chinese handicap compensation.
# The order of the vertices in a reply is not specified: each reply is matched as "exactly N
# vertices from the expected set", and is_legal on every expected vertex proves all are there.

boardsize 9
clear_board
1 fixed_handicap 2
#? [(C3|G7)( (C3|G7)){1}]
2 is_legal w C3
#? [0]
3 is_legal w G7
#? [0]

boardsize 9
clear_board
4 fixed_handicap 3
#? [(C3|G7|C7)( (C3|G7|C7)){2}]
5 is_legal w C3
#? [0]
6 is_legal w G7
#? [0]
7 is_legal w C7
#? [0]

boardsize 9
clear_board
8 fixed_handicap 4
#? [(C3|G7|C7|G3)( (C3|G7|C7|G3)){3}]
9 is_legal w C3
#? [0]
10 is_legal w G7
#? [0]
11 is_legal w C7
#? [0]
12 is_legal w G3
#? [0]

boardsize 9
clear_board
13 fixed_handicap 5
#? [(C3|G7|C7|G3|E5)( (C3|G7|C7|G3|E5)){4}]
14 is_legal w C3
#? [0]
15 is_legal w G7
#? [0]
16 is_legal w C7
#? [0]
17 is_legal w G3
#? [0]
18 is_legal w E5
#? [0]

boardsize 9
clear_board
19 fixed_handicap 6
#? [(C3|G7|C7|G3|C5|G5)( (C3|G7|C7|G3|C5|G5)){5}]
20 is_legal w C3
#? [0]
21 is_legal w G7
#? [0]
22 is_legal w C7
#? [0]
23 is_legal w G3
#? [0]
24 is_legal w C5
#? [0]
25 is_legal w G5
#? [0]

boardsize 9
clear_board
26 fixed_handicap 7
#? [(C3|G7|C7|G3|C5|G5|E5)( (C3|G7|C7|G3|C5|G5|E5)){6}]
27 is_legal w C3
#? [0]
28 is_legal w G7
#? [0]
29 is_legal w C7
#? [0]
30 is_legal w G3
#? [0]
31 is_legal w C5
#? [0]
32 is_legal w G5
#? [0]
33 is_legal w E5
#? [0]

boardsize 9
clear_board
34 fixed_handicap 8
#? [(C3|G7|C7|G3|C5|G5|E3|E7)( (C3|G7|C7|G3|C5|G5|E3|E7)){7}]
35 is_legal w C3
#? [0]
36 is_legal w G7
#? [0]
37 is_legal w C7
#? [0]
38 is_legal w G3
#? [0]
39 is_legal w C5
#? [0]
40 is_legal w G5
#? [0]
41 is_legal w E3
#? [0]
42 is_legal w E7
#? [0]

boardsize 9
clear_board
43 fixed_handicap 9
#? [(C3|G7|C7|G3|C5|G5|E3|E7|E5)( (C3|G7|C7|G3|C5|G5|E3|E7|E5)){8}]
44 is_legal w C3
#? [0]
45 is_legal w G7
#? [0]
46 is_legal w C7
#? [0]
47 is_legal w G3
#? [0]
48 is_legal w C5
#? [0]
49 is_legal w G5
#? [0]
50 is_legal w E3
#? [0]
51 is_legal w E7
#? [0]
52 is_legal w E5
#? [0]

boardsize 13
clear_board
100 fixed_handicap 2
#? [(D4|K10)( (D4|K10)){1}]
101 is_legal w D4
#? [0]
102 is_legal w K10
#? [0]

boardsize 13
clear_board
103 fixed_handicap 4
#? [(D4|K10|D10|K4)( (D4|K10|D10|K4)){3}]
104 is_legal w D4
#? [0]
105 is_legal w K10
#? [0]
106 is_legal w D10
#? [0]
107 is_legal w K4
#? [0]

boardsize 13
clear_board
108 fixed_handicap 9
#? [(D4|K10|D10|K4|D7|K7|G4|G10|G7)( (D4|K10|D10|K4|D7|K7|G4|G10|G7)){8}]
109 is_legal w D4
#? [0]
110 is_legal w K10
#? [0]
111 is_legal w D10
#? [0]
112 is_legal w K4
#? [0]
113 is_legal w D7
#? [0]
114 is_legal w K7
#? [0]
115 is_legal w G4
#? [0]
116 is_legal w G10
#? [0]
117 is_legal w G7
#? [0]

boardsize 19
clear_board
200 fixed_handicap 2
#? [(D4|Q16)( (D4|Q16)){1}]
201 is_legal w D4
#? [0]
202 is_legal w Q16
#? [0]

boardsize 19
clear_board
203 fixed_handicap 3
#? [(D4|Q16|D16)( (D4|Q16|D16)){2}]
204 is_legal w D4
#? [0]
205 is_legal w Q16
#? [0]
206 is_legal w D16
#? [0]

boardsize 19
clear_board
207 fixed_handicap 4
#? [(D4|Q16|D16|Q4)( (D4|Q16|D16|Q4)){3}]
208 is_legal w D4
#? [0]
209 is_legal w Q16
#? [0]
210 is_legal w D16
#? [0]
211 is_legal w Q4
#? [0]

boardsize 19
clear_board
212 fixed_handicap 5
#? [(D4|Q16|D16|Q4|K10)( (D4|Q16|D16|Q4|K10)){4}]
213 is_legal w D4
#? [0]
214 is_legal w Q16
#? [0]
215 is_legal w D16
#? [0]
216 is_legal w Q4
#? [0]
217 is_legal w K10
#? [0]

boardsize 19
clear_board
218 fixed_handicap 6
#? [(D4|Q16|D16|Q4|D10|Q10)( (D4|Q16|D16|Q4|D10|Q10)){5}]
219 is_legal w D4
#? [0]
220 is_legal w Q16
#? [0]
221 is_legal w D16
#? [0]
222 is_legal w Q4
#? [0]
223 is_legal w D10
#? [0]
224 is_legal w Q10
#? [0]

boardsize 19
clear_board
225 fixed_handicap 7
#? [(D4|Q16|D16|Q4|D10|Q10|K10)( (D4|Q16|D16|Q4|D10|Q10|K10)){6}]
226 is_legal w D4
#? [0]
227 is_legal w Q16
#? [0]
228 is_legal w D16
#? [0]
229 is_legal w Q4
#? [0]
230 is_legal w D10
#? [0]
231 is_legal w Q10
#? [0]
232 is_legal w K10
#? [0]

boardsize 19
clear_board
233 fixed_handicap 8
#? [(D4|Q16|D16|Q4|D10|Q10|K4|K16)( (D4|Q16|D16|Q4|D10|Q10|K4|K16)){7}]
234 is_legal w D4
#? [0]
235 is_legal w Q16
#? [0]
236 is_legal w D16
#? [0]
237 is_legal w Q4
#? [0]
238 is_legal w D10
#? [0]
239 is_legal w Q10
#? [0]
240 is_legal w K4
#? [0]
241 is_legal w K16
#? [0]

boardsize 19
clear_board
242 fixed_handicap 9
#? [(D4|Q16|D16|Q4|D10|Q10|K4|K16|K10)( (D4|Q16|D16|Q4|D10|Q10|K4|K16|K10)){8}]
243 is_legal w D4
#? [0]
244 is_legal w Q16
#? [0]
245 is_legal w D16
#? [0]
246 is_legal w Q4
#? [0]
247 is_legal w D10
#? [0]
248 is_legal w Q10
#? [0]
249 is_legal w K4
#? [0]
250 is_legal w K16
#? [0]
251 is_legal w K10
#? [0]

# 7x7 and even sizes have no centre point: at most 4 stones.
boardsize 7
clear_board
300 fixed_handicap 4
#? [(C3|E5|C5|E3)( (C3|E5|C5|E3)){3}]
clear_board
301 fixed_handicap 5
#? [invalid number of stones]*
boardsize 8
clear_board
302 fixed_handicap 5
#? [invalid number of stones]*
boardsize 10
clear_board
303 fixed_handicap 4
#? [(C3|H8|C8|H3)( (C3|H8|C8|H3)){3}]
clear_board
304 fixed_handicap 5
#? [invalid number of stones]*

# Invalid numbers of stones and a board that is not empty.
boardsize 19
clear_board
310 fixed_handicap 1
#? [invalid number of stones]*
311 fixed_handicap 10
#? [invalid number of stones]*
312 fixed_handicap 0
#? [invalid number of stones]*
313 fixed_handicap two
#? [syntax error.*]*
play b D4
314 fixed_handicap 2
#? [board not empty]*

# Handicap stones are not moves: nothing to undo afterwards.
clear_board
fixed_handicap 4
320 undo
#? [cannot undo]*

# set_free_handicap: the controller's vertices.
boardsize 9
clear_board
330 set_free_handicap C3 G7 E5
#? []
331 is_legal w E5
#? [0]
332 list_stones black
#? [(C3|G7|E5)( (C3|G7|E5)){2}]
333 set_free_handicap A1 B1
#? [board not empty]*
clear_board
334 set_free_handicap D4 D4
#? [bad vertex list]*
clear_board
335 set_free_handicap D4 pass
#? [bad vertex list]*
# A single stone is not a handicap (spec: at least two; the text is debatable).
clear_board
336 set_free_handicap D4
#? [(bad vertex list|invalid number of stones)]*
clear_board
337 set_free_handicap
#? [(syntax error.*|bad vertex list|invalid number of stones)]*
# At most (number of vertices - 1) stones: a full 2x2 board is refused, 3 stones are fine.
boardsize 2
clear_board
338 set_free_handicap A1 B1 A2 B2
#? [bad vertex list]*
clear_board
339 set_free_handicap A1 B1 A2
#? []

# place_free_handicap: the engine chooses (it may place fewer stones than asked, spec 6.3.3).
boardsize 9
clear_board
340 place_free_handicap 4
#? [[A-HJ][1-9]( [A-HJ][1-9]){0,3}]
341 place_free_handicap 2
#? [board not empty]*
clear_board
342 place_free_handicap 1
#? [invalid number of stones]*
343 place_free_handicap 0
#? [invalid number of stones]*

# Chinese compensation: White gets 1 point per handicap stone. 9x9, komi 0.5, two free
# handicap stones on an otherwise empty board: Black's area is 81, so B+(81-0.5-2).
boardsize 9
clear_board
komi 0.5
set_free_handicap C3 G7
350 final_score
#? [B\+78\.5]
