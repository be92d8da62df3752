//! AFL++ target: `tengen::tools::fuzz::sgf_file` (see its documentation).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        tengen::tools::fuzz::sgf_file(data);
    });
}
