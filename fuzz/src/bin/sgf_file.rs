//! AFL++ target: `tengen::fuzzing::sgf_file` (see its documentation).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        tengen::fuzzing::sgf_file(data);
    });
}
