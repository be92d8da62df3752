//! A network in file order: the header (name, version, input counts, post-processing
//! multipliers), the trunk (initial convolution and matmul, metadata encoder, blocks, tip
//! norm) and the policy and value heads, with every channel count checked where two
//! layers meet. Knows nothing of boards or of evaluation.

use super::blocks::block_stack;
use super::layers::{MetadataEncoder, PolicyHead, RmsNorm, Trunk, TrunkTip, ValueHead};
use super::read::{activation, batch_norm, conv, fail, matbias, matmul, same, Reader, Res};
use super::{Model, PostProcess, NEWEST_VERSION, OLDEST_VERSION};

fn rms_norm(r: &mut Reader, parent: &str) -> Res<RmsNorm> {
    let name = r.name(parent, "an RMSNorm's name")?;
    let l = name.as_str();
    let channels = r.dim(l, "channels")?;
    let epsilon = r.float32(l, "epsilon")?;
    let spatial = r.int(l, "spatial flag")? != 0;
    let group = r.int(l, "channel group size")?;
    if !(epsilon > 0.0 && epsilon <= 1.0) {
        return fail(l, format!("epsilon {epsilon} is not in (0, 1]"));
    }
    if group != 0 {
        return fail(
            l,
            format!("grouped RMSNorm (group size {group}) is not supported"),
        );
    }
    let gamma = r.floats(l, channels)?;
    let beta = r.floats(l, channels)?;
    Ok(RmsNorm {
        name,
        channels,
        epsilon,
        spatial,
        gamma,
        beta,
    })
}

fn metadata_encoder(
    r: &mut Reader,
    parent: &str,
    version: i32,
    meta_version: i32,
) -> Res<MetadataEncoder> {
    let name = r.name(parent, "the metadata encoder's name")?;
    let l = name.as_str();
    let input_channels = r.dim(l, "input channels")?;
    same(
        l,
        "input channels",
        input_channels,
        "metadata inputs of version 1",
        192,
    )?;
    let e = MetadataEncoder {
        version: meta_version,
        input_channels,
        mul1: matmul(r, l)?,
        bias1: matbias(r, l)?,
        act1: activation(r, l, version)?,
        mul2: matmul(r, l)?,
        bias2: matbias(r, l)?,
        act2: activation(r, l, version)?,
        mul3: matmul(r, l)?,
        name: name.clone(),
    };
    same(
        l,
        "mul1 inputs",
        e.mul1.in_channels,
        "input channels",
        input_channels,
    )?;
    same(
        l,
        "mul1 outputs",
        e.mul1.out_channels,
        "bias1 channels",
        e.bias1.weights.len(),
    )?;
    same(
        l,
        "mul2 inputs",
        e.mul2.in_channels,
        "mul1 outputs",
        e.mul1.out_channels,
    )?;
    same(
        l,
        "mul2 outputs",
        e.mul2.out_channels,
        "bias2 channels",
        e.bias2.weights.len(),
    )?;
    same(
        l,
        "mul3 inputs",
        e.mul3.in_channels,
        "mul2 outputs",
        e.mul2.out_channels,
    )?;
    Ok(e)
}

fn trunk(r: &mut Reader, version: i32, meta_version: i32) -> Res<Trunk> {
    let name = r.name("model", "the trunk's name")?;
    let l = name.as_str();
    let num_blocks = r.dim(l, "number of blocks")?;
    let channels = r.dim(l, "trunk channels")?;
    let mid_channels = r.dim(l, "mid channels")?;
    let regular_channels = r.dim(l, "regular channels")?;
    let _dilated = r.int(l, "dilated channels")?;
    let gpool_channels = r.dim(l, "gpool channels")?;
    let mut rms_tip = false;
    if version >= 15 {
        rms_tip = match r.int(l, "trunk norm kind")? {
            0 => false,
            1 => true,
            k => return fail(l, format!("unknown trunk norm kind {k}")),
        };
        for opt in ["B", "C", "D", "E", "F"] {
            r.unused(l, &format!("trunk option {opt}"))?;
        }
    }
    let initial_conv = conv(r, l)?;
    same(
        l,
        "initial conv outputs",
        initial_conv.out_channels,
        "trunk channels",
        channels,
    )?;
    let initial_matmul = matmul(r, l)?;
    same(
        l,
        "initial matmul outputs",
        initial_matmul.out_channels,
        "trunk channels",
        channels,
    )?;
    let metadata_encoder = if meta_version > 0 {
        let e = metadata_encoder(r, l, version, meta_version)?;
        same(
            l,
            "metadata encoder outputs",
            e.mul3.out_channels,
            "trunk channels",
            channels,
        )?;
        Some(e)
    } else {
        None
    };
    let blocks = block_stack(r, l, version, num_blocks, channels, 0)?;
    let tip = if rms_tip {
        let n = rms_norm(r, l)?;
        same(
            l,
            "tip RMSNorm channels",
            n.channels,
            "trunk channels",
            channels,
        )?;
        TrunkTip::RmsNorm(n)
    } else {
        let n = batch_norm(r, l)?;
        same(l, "tip BN channels", n.channels, "trunk channels", channels)?;
        TrunkTip::BatchNorm(n)
    };
    let tip_activation = activation(r, l, version)?;
    Ok(Trunk {
        name,
        channels,
        mid_channels,
        regular_channels,
        gpool_channels,
        initial_conv,
        initial_matmul,
        metadata_encoder,
        blocks,
        tip,
        tip_activation,
    })
}

fn policy_head(r: &mut Reader, version: i32) -> Res<PolicyHead> {
    let name = r.name("model", "the policy head's name")?;
    let l = name.as_str();
    let out_channels = if version >= 17 {
        let c = r.dim(l, "policy outputs")?;
        if c != 2 && c != 4 {
            return fail(l, format!("{c} policy outputs (expected 2 or 4)"));
        }
        c
    } else if version == 16 {
        4
    } else if version >= 12 {
        2
    } else {
        1
    };
    if version >= 17 {
        for opt in ["A", "B", "C"] {
            r.unused(l, &format!("policy option {opt}"))?;
        }
    }
    let p1_conv = conv(r, l)?;
    let g1_conv = conv(r, l)?;
    let g1_bn = batch_norm(r, l)?;
    let g1_activation = activation(r, l, version)?;
    let gpool_to_bias = matmul(r, l)?;
    let p1_bn = batch_norm(r, l)?;
    let p1_activation = activation(r, l, version)?;
    let p2_conv = conv(r, l)?;
    let gpool_to_pass = matmul(r, l)?;
    let (pass_bias, pass_activation, gpool_to_pass2) = if version >= 15 {
        (
            Some(matbias(r, l)?),
            Some(activation(r, l, version)?),
            Some(matmul(r, l)?),
        )
    } else {
        (None, None, None)
    };
    same(
        l,
        "p1 conv outputs",
        p1_conv.out_channels,
        "p1 BN channels",
        p1_bn.channels,
    )?;
    same(
        l,
        "g1 conv outputs",
        g1_conv.out_channels,
        "g1 BN channels",
        g1_bn.channels,
    )?;
    same(
        l,
        "gpool-to-bias inputs",
        gpool_to_bias.in_channels,
        "3 x g1 BN channels",
        3 * g1_bn.channels,
    )?;
    same(
        l,
        "gpool-to-bias outputs",
        gpool_to_bias.out_channels,
        "p1 BN channels",
        p1_bn.channels,
    )?;
    same(
        l,
        "p2 conv inputs",
        p2_conv.in_channels,
        "p1 BN channels",
        p1_bn.channels,
    )?;
    same(
        l,
        "p2 conv outputs",
        p2_conv.out_channels,
        "policy outputs",
        out_channels,
    )?;
    same(
        l,
        "gpool-to-pass inputs",
        gpool_to_pass.in_channels,
        "3 x g1 BN channels",
        3 * g1_bn.channels,
    )?;
    match (&pass_bias, &gpool_to_pass2) {
        (Some(b), Some(m2)) => {
            same(
                l,
                "gpool-to-pass outputs",
                gpool_to_pass.out_channels,
                "pass bias channels",
                b.weights.len(),
            )?;
            same(
                l,
                "gpool-to-pass outputs",
                gpool_to_pass.out_channels,
                "second pass matmul inputs",
                m2.in_channels,
            )?;
            same(
                l,
                "second pass matmul outputs",
                m2.out_channels,
                "policy outputs",
                out_channels,
            )?;
        }
        _ => same(
            l,
            "gpool-to-pass outputs",
            gpool_to_pass.out_channels,
            "policy outputs",
            out_channels,
        )?,
    }
    Ok(PolicyHead {
        name,
        out_channels,
        p1_conv,
        g1_conv,
        g1_bn,
        g1_activation,
        gpool_to_bias,
        p1_bn,
        p1_activation,
        p2_conv,
        gpool_to_pass,
        pass_bias,
        pass_activation,
        gpool_to_pass2,
    })
}

fn value_head(r: &mut Reader, version: i32) -> Res<ValueHead> {
    let name = r.name("model", "the value head's name")?;
    let l = name.as_str();
    if version >= 17 {
        for opt in ["A", "B", "C"] {
            r.unused(l, &format!("value option {opt}"))?;
        }
    }
    let h = ValueHead {
        v1_conv: conv(r, l)?,
        v1_bn: batch_norm(r, l)?,
        v1_activation: activation(r, l, version)?,
        v2_mul: matmul(r, l)?,
        v2_bias: matbias(r, l)?,
        v2_activation: activation(r, l, version)?,
        v3_mul: matmul(r, l)?,
        v3_bias: matbias(r, l)?,
        sv3_mul: matmul(r, l)?,
        sv3_bias: matbias(r, l)?,
        ownership_conv: conv(r, l)?,
        name: name.clone(),
    };
    same(
        l,
        "v1 conv outputs",
        h.v1_conv.out_channels,
        "v1 BN channels",
        h.v1_bn.channels,
    )?;
    same(
        l,
        "v2 inputs",
        h.v2_mul.in_channels,
        "3 x v1 BN channels",
        3 * h.v1_bn.channels,
    )?;
    same(
        l,
        "v2 outputs",
        h.v2_mul.out_channels,
        "v2 bias channels",
        h.v2_bias.weights.len(),
    )?;
    same(
        l,
        "v3 inputs",
        h.v3_mul.in_channels,
        "v2 outputs",
        h.v2_mul.out_channels,
    )?;
    same(l, "v3 outputs", h.v3_mul.out_channels, "three", 3)?;
    same(l, "v3 bias channels", h.v3_bias.weights.len(), "three", 3)?;
    same(
        l,
        "sv3 inputs",
        h.sv3_mul.in_channels,
        "v2 outputs",
        h.v2_mul.out_channels,
    )?;
    let score_outputs = if version >= 9 { 6 } else { 4 };
    same(
        l,
        "sv3 outputs",
        h.sv3_mul.out_channels,
        "score outputs of this version",
        score_outputs,
    )?;
    same(
        l,
        "sv3 bias channels",
        h.sv3_bias.weights.len(),
        "score outputs of this version",
        score_outputs,
    )?;
    same(
        l,
        "ownership conv inputs",
        h.ownership_conv.in_channels,
        "v1 conv outputs",
        h.v1_conv.out_channels,
    )?;
    same(
        l,
        "ownership conv outputs",
        h.ownership_conv.out_channels,
        "one",
        1,
    )?;
    Ok(h)
}

pub(super) fn model(r: &mut Reader) -> Res<Model> {
    let name = r.name("model", "the model's name")?;
    let l = name.as_str();
    if name.len() > 96
        || !name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
    {
        return fail(
            "model",
            format!("{name:?} is not a model name (this is not a KataGo model file?)"),
        );
    }
    let version = match r.int(l, "the model version") {
        Ok(v) => v,
        Err(_) => {
            return fail(
                l,
                "no model version after the name (this is not a KataGo model file?)",
            )
        }
    };
    if !(OLDEST_VERSION as i64..=NEWEST_VERSION as i64).contains(&version) {
        return fail(
            l,
            format!(
                "model version {version} is not supported (only {OLDEST_VERSION} to {NEWEST_VERSION})"
            ),
        );
    }
    let version = version as i32;
    let input_channels = r.dim(l, "input channels")?;
    let global_channels = r.dim(l, "global input channels")?;
    same(l, "input channels", input_channels, "V7 input planes", 22)?;
    same(
        l,
        "global input channels",
        global_channels,
        "V7 global inputs",
        19,
    )?;
    let mut post_process = PostProcess::default();
    if version >= 13 {
        let p = &mut post_process;
        for (field, what) in [
            (&mut p.td_score_multiplier, "tdScoreMultiplier"),
            (&mut p.score_mean_multiplier, "scoreMeanMultiplier"),
            (&mut p.score_stdev_multiplier, "scoreStdevMultiplier"),
            (&mut p.lead_multiplier, "leadMultiplier"),
            (&mut p.variance_time_multiplier, "varianceTimeMultiplier"),
            (
                &mut p.shortterm_value_error_multiplier,
                "shorttermValueErrorMultiplier",
            ),
            (
                &mut p.shortterm_score_error_multiplier,
                "shorttermScoreErrorMultiplier",
            ),
        ] {
            *field = r.float(l, what)?;
            if *field <= 0.0 {
                return fail(l, format!("{what} {} is not positive", *field));
            }
        }
    }
    let mut meta_encoder_version = 0;
    let mut prefer_pass_alive_under_suicide = false;
    if version >= 15 {
        meta_encoder_version = match r.int(l, "metadata encoder version")? {
            v @ (0 | 1) => v as i32,
            v => {
                return fail(
                    l,
                    format!("metadata encoder version {v} is not supported (0 or 1)"),
                )
            }
        };
        prefer_pass_alive_under_suicide = r.flag(l, "pass-alive-under-suicide flag")?;
        for opt in ["C", "D", "E", "F", "G", "H"] {
            r.unused(l, &format!("model option {opt}"))?;
        }
    }
    let meta_channels = if meta_encoder_version == 1 { 192 } else { 0 };
    let trunk = trunk(r, version, meta_encoder_version)?;
    let policy = policy_head(r, version)?;
    let value = value_head(r, version)?;
    same(
        l,
        "input channels",
        input_channels,
        "initial conv inputs",
        trunk.initial_conv.in_channels,
    )?;
    same(
        l,
        "global input channels",
        global_channels,
        "initial matmul inputs",
        trunk.initial_matmul.in_channels,
    )?;
    same(
        l,
        "trunk channels",
        trunk.channels,
        "policy p1 conv inputs",
        policy.p1_conv.in_channels,
    )?;
    same(
        l,
        "trunk channels",
        trunk.channels,
        "policy g1 conv inputs",
        policy.g1_conv.in_channels,
    )?;
    same(
        l,
        "trunk channels",
        trunk.channels,
        "value v1 conv inputs",
        value.v1_conv.in_channels,
    )?;
    if !r.at_end()? {
        return fail(
            l,
            "text or data after the value head (a damaged or different file?)",
        );
    }
    Ok(Model {
        name,
        version,
        input_channels,
        global_channels,
        meta_channels,
        meta_encoder_version,
        prefer_pass_alive_under_suicide,
        post_process,
        trunk,
        policy,
        value,
    })
}
