//! AFL++ target: `tengen::fuzzing::gtp_line` (see its documentation).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        tengen::fuzzing::gtp_line(data);
    });
}
