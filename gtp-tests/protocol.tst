# GTP v2 protocol basics: administrative commands, ids, unknown commands, syntax errors.
# Every numbered reply must echo its id (`tengen regress --strict` checks it). No 'quit' here: the runner
# sends it at the end of the file.

1 protocol_version
#? [2]
2 name
#? [.+]
# Our version numbers have a dot (e.g. 0.1.0).
3 version
#? [.*\..*]

# known_command answers true/false and never fails.
10 known_command play
#? [true]
11 known_command genmove
#? [true]
12 known_command quit
#? [true]
13 known_command gg-undo
#? [true]
14 known_command kgs-time_settings
#? [true]
15 known_command no_such_command
#? [false]
# GoGui sends '# interrupt' lines only to engines that list gogui-interrupt.
17 known_command gogui-interrupt
#? [true]
18 gogui-interrupt
#? []
16 known_command
#? [syntax error.*]*

# list_commands: one command per line; each test checks that one name is a whole line.
20 list_commands
#? [(.*\n)?protocol_version(\n.*)?]
21 list_commands
#? [(.*\n)?name(\n.*)?]
22 list_commands
#? [(.*\n)?version(\n.*)?]
23 list_commands
#? [(.*\n)?known_command(\n.*)?]
24 list_commands
#? [(.*\n)?list_commands(\n.*)?]
25 list_commands
#? [(.*\n)?quit(\n.*)?]
26 list_commands
#? [(.*\n)?boardsize(\n.*)?]
27 list_commands
#? [(.*\n)?clear_board(\n.*)?]
28 list_commands
#? [(.*\n)?komi(\n.*)?]
29 list_commands
#? [(.*\n)?play(\n.*)?]
30 list_commands
#? [(.*\n)?genmove(\n.*)?]
31 list_commands
#? [(.*\n)?undo(\n.*)?]
32 list_commands
#? [(.*\n)?showboard(\n.*)?]
33 list_commands
#? [(.*\n)?final_score(\n.*)?]
34 list_commands
#? [(.*\n)?fixed_handicap(\n.*)?]
35 list_commands
#? [(.*\n)?place_free_handicap(\n.*)?]
36 list_commands
#? [(.*\n)?set_free_handicap(\n.*)?]
37 list_commands
#? [(.*\n)?loadsgf(\n.*)?]
38 list_commands
#? [(.*\n)?time_settings(\n.*)?]
39 list_commands
#? [(.*\n)?time_left(\n.*)?]
40 list_commands
#? [(.*\n)?printsgf(\n.*)?]
41 list_commands
#? [(.*\n)?is_legal(\n.*)?]
# No empty entries, no spaces inside a line.
42 list_commands
#? [[a-z_-]+(\n[a-z_-]+)*]

# Unknown commands fail with the spec's text, with or without an id.
50 no_such_command
#? [unknown command]*
51 no_such_command with arguments
#? [unknown command]*
# Command names are case sensitive: NAME is not name (GTP v2 section 2.4).
52 NAME
#? [unknown command]*

# Ids: any non-negative integer is echoed.
0 name
#? [.+]
99999 protocol_version
#? [2]

# Wrong arity or argument type: syntax error.
70 boardsize
#? [syntax error.*]*
71 boardsize nine
#? [syntax error.*]*
72 boardsize 9 13
#? [unacceptable size]*
73 komi
#? [syntax error.*]*
74 komi six
#? [syntax error.*]*
75 play b
#? [syntax error.*]*
76 play x D4
#? [syntax error.*]*
77 play b D4 extra
#? [syntax error.*]*
78 genmove
#? [syntax error.*]*
79 genmove purple
#? [syntax error.*]*
80 is_legal b
#? [syntax error.*]*
81 countlib
#? [syntax error.*]*
82 list_stones
#? [syntax error.*]*

# The engine is still fine after all the errors.
90 protocol_version
#? [2]
