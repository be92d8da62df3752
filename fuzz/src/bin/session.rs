//! AFL++ target: `tengen::fuzzing::session` (see its documentation).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        tengen::fuzzing::session(data);
    });
}
