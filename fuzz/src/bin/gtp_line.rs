//! AFL++ target: `tengen::tools::fuzz::gtp_line` (see its documentation).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        tengen::tools::fuzz::gtp_line(data);
    });
}
