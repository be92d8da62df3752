//! The format's tokens and float blocks (text or `@BIN@` binary, every weight finite,
//! subnormals zeroed) and its single layers: convolutions (reordered for the forward
//! pass), batch norms (folded into a scale and a bias), activations, dense layers and
//! biases. Errors name the layer. Knows nothing of blocks, of the network's structure, of
//! boards or of evaluation.

use super::layers::{Activation, BatchNorm, Conv, MatBias, MatMul};

/// Largest channel count, kernel side or block count a layer may declare.
const MAX_DIM: i64 = 1 << 16;

/// A format problem before the file name is known.
#[derive(Debug)]
pub(super) struct Fail {
    pub(super) layer: String,
    pub(super) problem: String,
}

pub(super) type Res<T> = Result<T, Fail>;

pub(super) fn fail<T>(layer: &str, problem: impl Into<String>) -> Res<T> {
    Err(Fail {
        layer: layer.to_string(),
        problem: problem.into(),
    })
}

// ---------------------------------------------------------------------------------------
// Reading tokens and float blocks.

/// Longest token read: a name, a number or a keyword are far shorter.
const MAX_TOKEN: usize = 1024;

/// The tokens and float blocks of a model file, read from a stream (the file, or its gzip
/// decompression) as the parse goes: the memory taken grows with what the file holds, and
/// a file that is not a model (a gzip bomb of zeros, say) fails within its first bytes.
pub(super) struct Reader<'a> {
    src: Box<dyn std::io::Read + 'a>,
    /// What the errors of reading `src` are reported under ("gzip", "file").
    source: &'static str,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// Bytes read from `src` so far, and the most it may give.
    total: u64,
    limit: u64,
    eof: bool,
    /// Whether the weights are binary (`@BIN@` blocks): found at the first block.
    binary: Option<bool>,
}

impl<'a> Reader<'a> {
    /// A reader of `src` (`source` names it in errors) that refuses more than `limit`
    /// bytes.
    pub(super) fn new(src: Box<dyn std::io::Read + 'a>, source: &'static str, limit: u64) -> Self {
        Reader {
            src,
            source,
            buf: vec![0; 1 << 16],
            pos: 0,
            end: 0,
            total: 0,
            limit,
            eof: false,
            binary: None,
        }
    }

    /// The next byte without taking it; `None` at the end of the file.
    fn peek(&mut self) -> Res<Option<u8>> {
        if self.pos < self.end {
            return Ok(Some(self.buf[self.pos]));
        }
        if self.eof {
            return Ok(None);
        }
        let n = loop {
            match self.src.read(&mut self.buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return fail(self.source, format!("cannot read: {e}")),
            }
        };
        self.total += n as u64;
        if self.total > self.limit {
            return fail(
                self.source,
                format!(
                    "more than {} bytes (not a model this reader takes)",
                    self.limit
                ),
            );
        }
        self.pos = 0;
        self.end = n;
        if n == 0 {
            self.eof = true;
            return Ok(None);
        }
        Ok(Some(self.buf[0]))
    }

    fn skip_space(&mut self) -> Res<()> {
        while self.peek()?.is_some() {
            let rest = &self.buf[self.pos..self.end];
            match rest.iter().position(|c| !c.is_ascii_whitespace()) {
                Some(i) => {
                    self.pos += i;
                    break;
                }
                None => self.pos = self.end,
            }
        }
        Ok(())
    }

    pub(super) fn token(&mut self, layer: &str, what: &str) -> Res<String> {
        self.skip_space()?;
        let mut t = Vec::new();
        while let Some(c) = self.peek()? {
            if c.is_ascii_whitespace() {
                break;
            }
            if t.len() == MAX_TOKEN {
                return fail(
                    layer,
                    format!(
                        "{what}: more than {MAX_TOKEN} bytes without a space (not a model file?)"
                    ),
                );
            }
            t.push(c);
            self.pos += 1;
        }
        if t.is_empty() {
            return fail(layer, format!("file ends where {what} was expected"));
        }
        match String::from_utf8(t) {
            Ok(s) => Ok(s),
            Err(_) => fail(layer, format!("{what} is not text")),
        }
    }

    /// A layer's name (the layer it names is the one errors then mention).
    pub(super) fn name(&mut self, parent: &str, what: &str) -> Res<String> {
        let t = self.token(parent, what)?;
        if t.len() > 200 {
            return fail(parent, format!("{what} is {} characters long", t.len()));
        }
        Ok(t)
    }

    pub(super) fn int(&mut self, layer: &str, what: &str) -> Res<i64> {
        let t = self.token(layer, what)?;
        match t.parse::<i64>() {
            Ok(v) => Ok(v),
            Err(_) => fail(layer, format!("{what}: expected an integer, found {t:?}")),
        }
    }

    /// A size: an integer in 1..=MAX_DIM.
    pub(super) fn dim(&mut self, layer: &str, what: &str) -> Res<usize> {
        let v = self.int(layer, what)?;
        if !(1..=MAX_DIM).contains(&v) {
            return fail(layer, format!("{what} is {v}, not in 1..={MAX_DIM}"));
        }
        Ok(v as usize)
    }

    /// An integer that must be 0 or 1.
    pub(super) fn flag(&mut self, layer: &str, what: &str) -> Res<bool> {
        match self.int(layer, what)? {
            0 => Ok(false),
            1 => Ok(true),
            v => fail(layer, format!("{what} is {v}, expected 0 or 1")),
        }
    }

    /// An option KataGo reserves for later use: must be 0.
    pub(super) fn unused(&mut self, layer: &str, what: &str) -> Res<()> {
        match self.int(layer, what)? {
            0 => Ok(()),
            v => fail(layer, format!("unknown or unsupported {what}: {v}")),
        }
    }

    /// A number read as f32 directly (as KataGo's `in >> float` does).
    pub(super) fn float32(&mut self, layer: &str, what: &str) -> Res<f32> {
        let t = self.token(layer, what)?;
        match t.parse::<f32>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => fail(
                layer,
                format!("{what}: expected a finite number, found {t:?}"),
            ),
        }
    }

    pub(super) fn float(&mut self, layer: &str, what: &str) -> Res<f64> {
        let t = self.token(layer, what)?;
        match t.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => fail(
                layer,
                format!("{what}: expected a finite number, found {t:?}"),
            ),
        }
    }

    /// A block of `n` weights, text or binary; every one finite. Memory grows with the
    /// weights actually read, not with the `n` a layer claims.
    pub(super) fn floats(&mut self, layer: &str, n: usize) -> Res<Vec<f32>> {
        let mut out = Vec::with_capacity(n.min(1 << 16));
        self.skip_space()?;
        let binary = match self.binary {
            Some(b) => b,
            None => {
                let b = self.peek()? == Some(b'@');
                self.binary = Some(b);
                b
            }
        };
        if binary {
            for &c in b"@BIN@" {
                match self.peek()? {
                    Some(b) if b == c => self.pos += 1,
                    Some(_) => return fail(layer, "no @BIN@ block where the weights should start"),
                    None => return fail(layer, "file ends where the weights should start"),
                }
            }
            while out.len() < n {
                let v = if self.end - self.pos >= 4 {
                    let b = &self.buf[self.pos..self.pos + 4];
                    self.pos += 4;
                    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
                } else {
                    let mut b = [0u8; 4];
                    for x in &mut b {
                        match self.peek()? {
                            Some(c) => {
                                *x = c;
                                self.pos += 1;
                            }
                            None => {
                                return fail(
                                    layer,
                                    format!(
                                        "file ends inside its weights ({} of {n} floats present)",
                                        out.len()
                                    ),
                                )
                            }
                        }
                    }
                    f32::from_le_bytes(b)
                };
                out.push(v);
            }
        } else {
            for i in 0..n {
                let t = self.token(layer, "a weight")?;
                match t.parse::<f32>() {
                    Ok(v) => out.push(v),
                    Err(_) => {
                        return fail(layer, format!("weight {i}: expected a number, found {t:?}"))
                    }
                }
            }
        }
        if let Some(i) = out.iter().position(|v| !v.is_finite()) {
            return fail(layer, format!("weight {i} is not finite ({})", out[i]));
        }
        // Subnormal weights (b10c384's feed-forward layers hold thousands, below 1e-38:
        // pruned channels) count for nothing, but every multiply-add that yields a subnormal
        // takes a microcode assist of about a hundred cycles: zero them.
        for v in &mut out {
            if v.is_subnormal() {
                *v = 0.0;
            }
        }
        Ok(out)
    }

    /// Whether nothing but whitespace is left.
    pub(super) fn at_end(&mut self) -> Res<bool> {
        self.skip_space()?;
        Ok(self.peek()?.is_none())
    }
}

// ---------------------------------------------------------------------------------------
// Layers.

pub(super) fn conv(r: &mut Reader, parent: &str) -> Res<Conv> {
    let name = r.name(parent, "a convolution's name")?;
    let l = name.as_str();
    let ky = r.dim(l, "kernel height")?;
    let kx = r.dim(l, "kernel width")?;
    let ic = r.dim(l, "input channels")?;
    let oc = r.dim(l, "output channels")?;
    let dy = r.int(l, "vertical dilation")?;
    let dx = r.int(l, "horizontal dilation")?;
    if ky % 2 != 1 || kx % 2 != 1 {
        return fail(l, format!("kernel {ky}x{kx}: sizes must be odd"));
    }
    if dy != 1 || dx != 1 {
        return fail(l, format!("dilation {dy}x{dx} is not supported (only 1x1)"));
    }
    let n = ky * kx * ic * oc;
    let file = r.floats(l, n)?;
    // The file's order is y, x, ic, oc; ours is oc, ic, y, x.
    let mut weights = vec![0.0; n];
    let mut idx = 0;
    for y in 0..ky {
        for x in 0..kx {
            for i in 0..ic {
                for o in 0..oc {
                    weights[((o * ic + i) * ky + y) * kx + x] = file[idx];
                    idx += 1;
                }
            }
        }
    }
    Ok(Conv {
        name,
        kernel_y: ky,
        kernel_x: kx,
        in_channels: ic,
        out_channels: oc,
        weights,
        bf16: Default::default(),
        fp32: Default::default(),
        int8: Default::default(),
    })
}

pub(super) fn batch_norm(r: &mut Reader, parent: &str) -> Res<BatchNorm> {
    let name = r.name(parent, "a batch norm's name")?;
    let l = name.as_str();
    let c = r.dim(l, "channels")?;
    let eps = r.float32(l, "epsilon")?;
    if !(eps > 0.0 && eps.is_finite()) {
        return fail(l, format!("epsilon {eps} is not positive"));
    }
    let has_scale = r.flag(l, "has-scale flag")?;
    let has_bias = r.flag(l, "has-bias flag")?;
    let mean = r.floats(l, c)?;
    let variance = r.floats(l, c)?;
    let gamma = if has_scale {
        r.floats(l, c)?
    } else {
        vec![1.0; c]
    };
    let beta = if has_bias {
        r.floats(l, c)?
    } else {
        vec![0.0; c]
    };
    let mut scale = Vec::with_capacity(c);
    let mut bias = Vec::with_capacity(c);
    for i in 0..c {
        // In f32 as KataGo computes it.
        let s = gamma[i] / (variance[i] + eps).sqrt();
        scale.push(s);
        bias.push(beta[i] - s * mean[i]);
    }
    if scale.iter().chain(&bias).any(|v| !v.is_finite()) {
        return fail(
            l,
            "folding gives a non-finite scale or bias (negative variance?)",
        );
    }
    Ok(BatchNorm {
        name,
        channels: c,
        scale,
        bias,
        learned: c * (has_scale as usize + has_bias as usize),
    })
}

pub(super) fn activation(r: &mut Reader, parent: &str, version: i32) -> Res<Activation> {
    let name = r.name(parent, "an activation's name")?;
    if version < 11 {
        return Ok(Activation::Relu);
    }
    let kind = r.token(&name, "the activation kind")?;
    Ok(match kind.as_str() {
        "ACTIVATION_IDENTITY" => Activation::Identity,
        "ACTIVATION_RELU" => Activation::Relu,
        "ACTIVATION_MISH" => Activation::Mish,
        "ACTIVATION_SILU" => Activation::Silu,
        _ => return fail(&name, format!("unknown activation {kind:?}")),
    })
}

pub(super) fn matmul(r: &mut Reader, parent: &str) -> Res<MatMul> {
    let name = r.name(parent, "a matmul's name")?;
    let l = name.as_str();
    let ic = r.dim(l, "input channels")?;
    let oc = r.dim(l, "output channels")?;
    let weights = r.floats(l, ic * oc)?;
    Ok(MatMul {
        name,
        in_channels: ic,
        out_channels: oc,
        weights,
        bf16: Default::default(),
        fp32: Default::default(),
        int8: Default::default(),
    })
}

pub(super) fn matbias(r: &mut Reader, parent: &str) -> Res<MatBias> {
    let name = r.name(parent, "a bias's name")?;
    let c = r.dim(&name, "channels")?;
    let weights = r.floats(&name, c)?;
    Ok(MatBias { name, weights })
}

/// Fails unless `a == b`, naming both.
pub(super) fn same(layer: &str, what_a: &str, a: usize, what_b: &str, b: usize) -> Res<()> {
    if a == b {
        Ok(())
    } else {
        fail(layer, format!("{what_a} ({a}) != {what_b} ({b})"))
    }
}
