//! AFL++ target: `tengen::tools::fuzz::session` (see its documentation).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        tengen::tools::fuzz::session(data);
    });
}
