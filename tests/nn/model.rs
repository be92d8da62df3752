//! The model reader: the three fixture networks load with the header, the layer kinds
//! and the parameter counts they have (counted independently by walking the files), and
//! damaged files (cut, altered version, unknown block, NaN weight, not a model at all) are
//! errors naming the file and the layer, never panics.

use std::io::{Read, Write};

use tengen::nn::model::{Activation, Block, Model, ModelError, Rope, TrunkTip};

use super::{fixture, optional_fixture, G170, TF_KV, TF_ROPE};

fn kinds(blocks: &[Block]) -> String {
    blocks
        .iter()
        .map(|b| match b {
            Block::Ordinary(_) => 'o',
            Block::GlobalPooling(_) => 'g',
            Block::NestedBottleneck(_) => 'n',
            Block::Attention(_) => 'a',
            Block::FeedForward(_) => 'f',
        })
        .collect()
}

#[cfg_attr(
    not(tengen_fixtures),
    ignore = "needs KataGo's fixture networks: ../shared/nn or $TENGEN_NN_DIR"
)]
#[test]
fn g170_resnet_loads() {
    let path = fixture(G170);
    let m = Model::load(&path).expect("loads");
    assert_eq!(m.name, "g170-b6c96-s175395328-d26788732");
    assert_eq!(m.version, 8);
    assert_eq!(
        (m.input_channels, m.global_channels, m.meta_channels),
        (22, 19, 0)
    );
    let t = &m.trunk;
    assert_eq!(t.blocks.len(), 6);
    // The -info.txt beside it: regular, regular, gpool, regular, gpool, regular.
    assert_eq!(kinds(&t.blocks), "oogogo");
    assert_eq!(
        (
            t.channels,
            t.mid_channels,
            t.regular_channels,
            t.gpool_channels
        ),
        (96, 96, 64, 32)
    );
    assert_eq!((t.initial_conv.kernel_y, t.initial_conv.kernel_x), (5, 5));
    assert!(matches!(t.tip, TrunkTip::BatchNorm(_)));
    // Before version 11 every activation is ReLU.
    assert_eq!(t.tip_activation, Activation::Relu);
    assert_eq!(m.policy.out_channels, 1);
    assert!(m.policy.pass_bias.is_none());
    assert_eq!(m.value.sv3_mul.out_channels, 4);
    assert_eq!(m.post_process.score_mean_multiplier, 20.0);
    assert_eq!(m.parameters(), 1_027_911);
    assert!(!m.has_transformer());
}

#[cfg_attr(
    not(tengen_fixtures),
    ignore = "needs KataGo's fixture networks: ../shared/nn or $TENGEN_NN_DIR"
)]
#[test]
fn transformer_with_fixed_rope_loads() {
    let path = fixture(TF_ROPE);
    let m = Model::load(&path).expect("loads");
    assert_eq!(m.name, "b7c96h3tfrs-test5-cnorm");
    assert_eq!(m.version, 17);
    assert_eq!(
        (m.input_channels, m.global_channels, m.meta_channels),
        (22, 19, 0)
    );
    assert_eq!(m.trunk.blocks.len(), 14);
    assert_eq!(m.trunk.channels, 96);
    assert!(m.has_transformer());
    assert!(matches!(m.trunk.tip, TrunkTip::RmsNorm(_)));
    for b in &m.trunk.blocks {
        match b {
            Block::Attention(a) => {
                assert_eq!((a.heads, a.kv_heads), (3, 3));
                assert!(matches!(a.rope, Rope::Fixed { .. }));
            }
            Block::FeedForward(_) => {}
            other => panic!("unexpected block {other:?}"),
        }
    }
    assert_eq!(m.post_process.shortterm_score_error_multiplier, 150.0);
    assert_eq!(m.parameters(), 818_953);
}

#[cfg_attr(
    not(tengen_fixtures),
    ignore = "needs KataGo's fixture networks: ../shared/nn or $TENGEN_NN_DIR"
)]
#[test]
fn transformer_with_grouped_heads_and_learnable_rope_loads() {
    let path = fixture(TF_KV);
    let m = Model::load(&path).expect("loads");
    assert_eq!(m.name, "b7c96h6kv3qk32v16tflrs-fson-bnh");
    assert_eq!(m.version, 17);
    assert_eq!((m.input_channels, m.global_channels), (22, 19));
    assert_eq!(m.trunk.blocks.len(), 14);
    assert!(matches!(m.trunk.tip, TrunkTip::BatchNorm(_)));
    let attention: Vec<_> = m
        .trunk
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Attention(a) => Some(a),
            _ => None,
        })
        .collect();
    assert!(!attention.is_empty());
    for a in attention {
        assert_eq!(
            (a.heads, a.kv_heads, a.q_head_dim, a.v_head_dim),
            (6, 3, 32, 16)
        );
        match &a.rope {
            Rope::Learnable { freqs } => assert_eq!(freqs.len(), 3 * 16 * 2),
            other => panic!("expected learnable RoPE, got {other:?}"),
        }
    }
    assert_eq!(m.parameters(), 851_881);
}

fn inflate(path: &std::path::Path) -> Vec<u8> {
    let gz = std::fs::read(path).unwrap();
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn format_error(r: Result<Model, ModelError>) -> (String, String) {
    match r {
        Err(ModelError::Format { layer, problem, .. }) => (layer, problem),
        Err(e) => panic!("not a format error: {e}"),
        Ok(m) => panic!("a damaged model loaded: {}", m.name),
    }
}

#[cfg_attr(
    not(tengen_fixtures),
    ignore = "needs KataGo's fixture networks: ../shared/nn or $TENGEN_NN_DIR"
)]
#[test]
fn cut_files_are_errors() {
    let path = fixture(G170);
    let gz = std::fs::read(&path).unwrap();
    // The compressed file cut short.
    for cut in [0, 1, 10, 1000, gz.len() / 2, gz.len() - 9] {
        let r = Model::from_bytes(&gz[..cut]);
        assert!(r.is_err(), "cut at {cut} of {} loaded", gz.len());
    }
    // The uncompressed model cut anywhere: in the header, a name, a weight block.
    let raw = inflate(&path);
    let n = raw.trim_ascii_end().len();
    for cut in (0..40)
        .map(|i| i * n / 40)
        .chain([1, 30, 100, n - 1, n - 4])
    {
        let (layer, problem) = format_error(Model::from_bytes(&raw[..cut]));
        assert!(!layer.is_empty() && !problem.is_empty(), "cut at {cut}");
    }
    // A weight block cut: the error names the layer and the problem.
    let first_bin = raw.windows(5).position(|w| w == b"@BIN@").unwrap();
    let (layer, problem) = format_error(Model::from_bytes(&raw[..first_bin + 100]));
    assert_eq!(layer, "conv1");
    assert!(problem.contains("ends inside its weights"), "{problem}");
}

#[cfg_attr(
    not(tengen_fixtures),
    ignore = "needs KataGo's fixture networks: ../shared/nn or $TENGEN_NN_DIR"
)]
#[test]
fn errors_name_the_file() {
    let path = fixture(G170);
    let gz = std::fs::read(&path).unwrap();
    let dir = std::env::temp_dir().join(format!("tengen-nn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cut = dir.join("cut.bin.gz");
    std::fs::write(&cut, &gz[..gz.len() / 3]).unwrap();
    let e = Model::load(&cut).unwrap_err().to_string();
    assert!(e.contains("cut.bin.gz"), "{e}");
    let missing = dir.join("missing.bin.gz");
    let e = Model::load(&missing).unwrap_err().to_string();
    assert!(
        e.contains("missing.bin.gz") && e.contains("cannot read"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn replace_once(raw: &[u8], from: &str, to: &str) -> Vec<u8> {
    let at = raw
        .windows(from.len())
        .position(|w| w == from.as_bytes())
        .unwrap_or_else(|| panic!("{from:?} not found"));
    let mut out = raw[..at].to_vec();
    out.extend_from_slice(to.as_bytes());
    out.extend_from_slice(&raw[at + from.len()..]);
    out
}

#[cfg_attr(
    not(tengen_fixtures),
    ignore = "needs KataGo's fixture networks: ../shared/nn or $TENGEN_NN_DIR"
)]
#[test]
fn altered_files_are_errors() {
    let path = fixture(G170);
    let raw = inflate(&path);
    let name = "g170-b6c96-s175395328-d26788732";
    // Unknown versions, before and after the supported range.
    for v in ["7", "18", "99", "-1", "x"] {
        let bad = replace_once(&raw, &format!("{name}\n8\n"), &format!("{name}\n{v}\n"));
        let (layer, problem) = format_error(Model::from_bytes(&deflate(&bad)));
        assert_eq!(layer, name);
        assert!(problem.contains("version"), "{v}: {problem}");
    }
    // An unknown block kind.
    let bad = replace_once(&raw, "ordinary_block", "fancy_block");
    let (layer, problem) = format_error(Model::from_bytes(&bad));
    assert_eq!(layer, "trunk");
    assert!(problem.contains("fancy_block"), "{problem}");
    // A kernel of even size.
    let bad = replace_once(&raw, "conv1\n5\n5", "conv1\n4\n5");
    let (layer, problem) = format_error(Model::from_bytes(&bad));
    assert_eq!((layer.as_str(), problem.contains("odd")), ("conv1", true));
    // A NaN among the first conv's weights.
    let mut bad = raw.clone();
    let at = raw.windows(5).position(|w| w == b"@BIN@").unwrap() + 5 + 4 * 17;
    bad[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let (layer, problem) = format_error(Model::from_bytes(&bad));
    assert_eq!(layer, "conv1");
    assert!(problem.contains("not finite"), "{problem}");
    // An infinity in a batch norm's variance.
    let at = raw
        .windows(5)
        .enumerate()
        .filter(|(_, w)| *w == b"@BIN@")
        .nth(3)
        .unwrap()
        .0
        + 5;
    let mut bad = raw.clone();
    bad[at..at + 4].copy_from_slice(&f32::INFINITY.to_le_bytes());
    assert!(Model::from_bytes(&bad).is_err());
    // Bytes after the end.
    let mut bad = raw.clone();
    bad.extend_from_slice(b" extra");
    assert!(format_error(Model::from_bytes(&bad)).1.contains("after"));
}

#[test]
fn other_formats_are_errors() {
    for junk in [
        &b""[..],
        b"\x1f\x8b",
        b"hello world",
        b"PK\x03\x04 a zip file",
        b"{\"version\": 8}",
        b"name 8 22 19 trunk",
        b"name 8 22 19 trunk 6 96 96 64 32 32 conv1 5 5 22 96 1 1 @BIN@",
        b"name 8 22 19 trunk 6 96 96 64 32 32 conv1 5 5 22 96 1 1 0.5 nan",
        b"name 8 22 19 trunk 99999999 1 1 1 1 1",
    ] {
        let r = Model::from_bytes(junk);
        let e = r.expect_err("junk loaded").to_string();
        assert!(e.starts_with("<memory>: "), "{e}");
    }
}

/// Files of every kind that is no model (another format, a cut or altered model, no
/// regular file at all) through `Model::load`: an error naming the file and the problem,
/// never a panic (the GTP side, exit status 2 at start-up, is in `gtp.rs`).
#[test]
fn load_errors_name_the_file_and_the_problem() {
    let dir = std::env::temp_dir().join(format!("tengen-nn-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let mut cases = vec![
        // Another format: a PNG, plain text, a zip, gzip of text, an empty file.
        (
            write("image.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10"),
            "name is not text",
        ),
        (write("readme.txt", b"This is not a network.\n"), "version"),
        (
            write("archive.zip", b"PK\x03\x04\x14\0\0\0\x08\0"),
            "not a KataGo model file",
        ),
        (write("words.gz", &deflate(b"hello world")), "version"),
        (write("empty.bin.gz", b""), "file ends"),
        // A gzip stream that breaks off.
        (
            write("broken.gz", &deflate(b"x".repeat(1000).as_slice())[..20]),
            "gzip",
        ),
        // Not a regular file.
        (dir.clone(), "not a regular file"),
        (std::path::PathBuf::from("/dev/zero"), "not a regular file"),
    ];
    if let Some(path) = optional_fixture(G170) {
        let gz = std::fs::read(&path).unwrap();
        let raw = inflate(&path);
        let name = "g170-b6c96-s175395328-d26788732";
        let v99 = replace_once(&raw, &format!("{name}\n8\n"), &format!("{name}\n99\n"));
        cases.push((write("v99.bin.gz", &deflate(&v99)), "version 99"));
        cases.push((write("cut.bin.gz", &gz[..gz.len() * 2 / 3]), "gzip"));
        let first_bin = raw.windows(5).position(|w| w == b"@BIN@").unwrap();
        cases.push((
            write("cut-inside.bin", &raw[..first_bin + 100]),
            "ends inside its weights",
        ));
    }
    let mut wrong = Vec::new();
    for (path, problem) in cases {
        let e = Model::load(&path).expect_err("not a model").to_string();
        let shown = path.display().to_string();
        if !(e.starts_with(&format!("{shown}: ")) && e.contains(problem)) {
            wrong.push(format!("{e} (wanted {problem:?})"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A gzip "bomb": a small file that decompresses to far more than any model.
fn bomb(byte: u8, mib: usize) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let chunk = vec![byte; 1 << 20];
    for _ in 0..mib {
        enc.write_all(&chunk).unwrap();
    }
    enc.finish().unwrap()
}

/// Hostile compressed files are parsed as they decompress: zeros fail within the first
/// token, whitespace at the reader's cap, and neither holds more than a few MiB at once
/// (the whole decompression used to be held: 1 GiB before the error); a real model
/// about its own size.
#[cfg_attr(
    not(tengen_fixtures),
    ignore = "needs KataGo's fixture networks: ../shared/nn or $TENGEN_NN_DIR"
)]
#[test]
fn gzip_bombs_fail_early_and_small() {
    use crate::common::alloc::peak_during;
    const MIB: usize = 1 << 20;
    let zeros = bomb(0, 300);
    let (r, peak) = peak_during(|| Model::from_bytes(&zeros));
    let (layer, problem) = format_error(r);
    assert_eq!(layer, "model");
    assert!(problem.contains("without a space"), "{problem}");
    assert!(peak < 4 * MIB, "{peak} bytes held");

    let spaces = bomb(b' ', 1100);
    let (r, peak) = peak_during(|| Model::from_bytes(&spaces));
    let (layer, problem) = format_error(r);
    assert_eq!(layer, "gzip");
    assert!(problem.contains("more than 1073741824 bytes"), "{problem}");
    assert!(peak < 4 * MIB, "{peak} bytes held");

    let path = fixture(G170);
    let file = std::fs::read(&path).unwrap();
    let (model, peak) = peak_during(|| Model::from_bytes(&file).unwrap());
    let weights = 4 * model.parameters();
    assert!(
        peak < 3 * weights + 4 * MIB,
        "{peak} bytes held for {weights} of weights"
    );
}
