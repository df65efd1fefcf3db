//! The topology, in either form: the common chain (`[wired]`, `[access.NAME]`, one `[mobile]`)
//! or the general form (`[[node]]`, `[[link]]`, `[mobile]` or `[[mobile]]` tables), into the
//! builder's nodes, links and mobiles.

use super::*;

impl Ctx<'_> {
    pub(super) fn common(&self, file: &File, b: &mut Builder) -> R<()> {
        if file.link.is_some() {
            return Err(self.err(
                0..0,
                "link",
                "[[link]] only together with [[node]] (the general form)",
                None,
            ));
        }
        let Some(access) = &file.access else {
            return Err(self.err(
                0..0,
                "access",
                "at least one [access.NAME] link (or the general form with [[node]])",
                Some(MISSING.into()),
            ));
        };
        for (name, kind) in [
            ("ch", NodeKind::Host),
            ("ha", NodeKind::Router),
            ("mh", NodeKind::Mobile),
        ] {
            b.nodes.push(NodeSpec {
                name: name.into(),
                kind,
            });
        }
        let wired = file.wired.clone().unwrap_or_default();
        let (ab, ba) = self.link_dirs(
            &wired,
            "wired",
            Some(DEFAULT_WIRED_PRESET),
            // Towards the mobile host is from `ch` to `ha`.
            (wired.down.as_ref(), wired.up.as_ref()),
            (MobileEnd::of(&b.nodes, 0, 1), ["ch", "ha"]),
        )?;
        b.links.push(LinkSpec {
            name: "wired".into(),
            preset: preset_name(&wired, DEFAULT_WIRED_PRESET),
            a: 0,
            b: 1,
            ab,
            ba,
        });
        let mut interfaces = Vec::new();
        for (name, l) in access {
            let field = format!("access.{name}");
            if name == "wired" {
                return Err(self.err(
                    l.span(),
                    &field,
                    "an access link name other than \"wired\"",
                    None,
                ));
            }
            let lt = l.get_ref();
            let (down, up) = self.link_dirs(
                lt,
                &field,
                None,
                (lt.down.as_ref(), lt.up.as_ref()),
                (MobileEnd::of(&b.nodes, 1, 2), ["ha", "mh"]),
            )?;
            interfaces.push(b.links.len());
            b.links.push(LinkSpec {
                name: name.clone(),
                preset: lt.preset.as_ref().map(|p| p.get_ref().clone()),
                a: 1,
                b: 2,
                ab: down,
                ba: up,
            });
        }
        let span = file.mobile.as_ref().map_or(0..0, |m| m.span());
        let mobile = match file.mobile.as_ref().map(|m| m.get_ref()) {
            None => None,
            Some(Mobiles::One(m)) => Some(m),
            Some(Mobiles::Many(_)) => {
                return Err(self.err(
                    span,
                    "mobile",
                    "one [mobile] table in the common form (several mobiles need the general \
                     form: [[node]], [[link]] and [[mobile]])",
                    Some("[[mobile]] tables".into()),
                ));
            }
        };
        if let Some(m) = mobile {
            if m.node.is_some() || m.interfaces.is_some() {
                // The key named: an error in a key a --set added is the --set's.
                let key = if m.node.is_some() {
                    "mobile.node"
                } else {
                    "mobile.interfaces"
                };
                return Err(self.err(
                    span.clone(),
                    key,
                    "only `start` in the common form (node and interfaces are implied)",
                    None,
                ));
            }
        }
        let initial = match mobile.and_then(|m| m.start.as_ref()) {
            Some(s) => b.link(self, s, "mobile.start")?,
            None if interfaces.len() == 1 => interfaces[0],
            None => {
                let names: Vec<&str> = interfaces
                    .iter()
                    .map(|&l| b.links[l].name.as_str())
                    .collect();
                return Err(self.err(
                    span,
                    "mobile.start",
                    format!(
                        "the access link in use at time zero, one of {}",
                        names.join(", ")
                    ),
                    Some(MISSING.into()),
                ));
            }
        };
        b.mobiles.push(MobileSpec {
            node: 2,
            interfaces,
            initial,
        });
        Ok(())
    }

    pub(super) fn general(
        &self,
        file: &File,
        nodes: &[toml::Spanned<NodeT>],
        b: &mut Builder,
    ) -> R<()> {
        if file.access.is_some() || file.wired.is_some() {
            return Err(self.err(
                0..0,
                "access",
                "either [access.*]/[wired] or [[node]]/[[link]], not both",
                None,
            ));
        }
        for n in nodes {
            let n = n.get_ref();
            let kind = match n.kind.get_ref().as_str() {
                "host" => NodeKind::Host,
                "router" => NodeKind::Router,
                "mobile" => NodeKind::Mobile,
                other => {
                    return Err(self.err(
                        n.kind.span(),
                        "node.kind",
                        "one of host, router, mobile",
                        Some(format!("{other:?}")),
                    ))
                }
            };
            if !is_safe_name(n.name.get_ref()) {
                // Node names name output files (`<node>.pcap`): nothing that could leave the
                // output directory or hide in it.
                return Err(self.err(
                    n.name.span(),
                    "node.name",
                    "a name of letters, digits, '-', '_' and '.' (not first), at most 64",
                    Some(format!("{:?}", n.name.get_ref())),
                ));
            }
            if b.nodes.iter().any(|x| &x.name == n.name.get_ref()) {
                return Err(self.err(
                    n.name.span(),
                    "node.name",
                    "a name not used before",
                    Some(format!("{:?}", n.name.get_ref())),
                ));
            }
            b.nodes.push(NodeSpec {
                name: n.name.get_ref().clone(),
                kind,
            });
        }
        for l in file.link.iter().flatten() {
            let l = l.get_ref();
            let field = format!("link.{}", l.name.get_ref());
            let ends = l.between.get_ref();
            if ends.len() != 2 || ends[0] == ends[1] {
                return Err(self.err(
                    l.between.span(),
                    &format!("{field}.between"),
                    "two different node names",
                    Some(format!("{ends:?}")),
                ));
            }
            let find = |name: &str| b.nodes.iter().position(|n| n.name == name);
            let (Some(a), Some(z)) = (find(&ends[0]), find(&ends[1])) else {
                return Err(self.err(
                    l.between.span(),
                    &format!("{field}.between"),
                    format!("names of [[node]]s ({})", b.node_names()),
                    Some(format!("{ends:?}")),
                ));
            };
            let as_link = LinkT {
                preset: l.preset.clone(),
                rate: l.rate.clone(),
                delay: l.delay.clone(),
                queue: l.queue.clone(),
                queue_model: l.queue_model.clone(),
                red: l.red.clone(),
                loss: l.loss.clone(),
                loss_at: l.loss_at.clone(),
                drop_packets: l.drop_packets.clone(),
                jitter_mean: l.jitter_mean.clone(),
                jitter_sd: l.jitter_sd.clone(),
                link_layer: l.link_layer.clone(),
                bler: l.bler.clone(),
                ber: l.ber.clone(),
                max_dat: l.max_dat.clone(),
                retry_limit: l.retry_limit.clone(),
                mtu: l.mtu.clone(),
                down: None,
                up: None,
            };
            let (ab, ba) = self.link_dirs(
                &as_link,
                &field,
                None,
                (l.forward.as_ref(), l.reverse.as_ref()),
                (MobileEnd::of(&b.nodes, a, z), [&ends[0], &ends[1]]),
            )?;
            b.links.push(LinkSpec {
                name: l.name.get_ref().clone(),
                preset: l.preset.as_ref().map(|p| p.get_ref().clone()),
                a,
                b: z,
                ab,
                ba,
            });
        }
        let table = file.mobile.as_ref().map_or(0..0, |m| m.span());
        for mt in file.mobile.iter().flat_map(|m| m.get_ref().all()) {
            // The table's own keys say where it is; an empty one, where the section is.
            let m = Located(if mt.span() == (0..0) {
                table.clone()
            } else {
                mt.span()
            });

            let node = match &mt.node {
                Some(n) => b.node(self, n, "mobile.node")?,
                None => {
                    return Err(self.err(m.span(), "mobile.node", "the mobile node's name", None))
                }
            };
            let mut interfaces = Vec::new();
            for i in mt.interfaces.iter().flatten() {
                let l = b.link(self, i, "mobile.interfaces")?;
                if b.links[l].a != node && b.links[l].b != node {
                    return Err(self.err(
                        i.span(),
                        "mobile.interfaces",
                        "a link with the mobile node at one end",
                        Some(format!("{:?}", i.get_ref())),
                    ));
                }
                interfaces.push(l);
            }
            let initial = match &mt.start {
                Some(s) => b.link(self, s, "mobile.start")?,
                None => *interfaces.first().ok_or_else(|| {
                    self.err(
                        m.span(),
                        "mobile.interfaces",
                        "at least one access link",
                        None,
                    )
                })?,
            };
            if b.mobiles.iter().any(|x| x.node == node) {
                return Err(self.err(
                    m.span(),
                    "mobile.node",
                    "each mobile node in one [[mobile]] table",
                    Some(format!("{:?} twice", b.nodes[node].name)),
                ));
            }
            for &l in &interfaces {
                if b.mobiles.iter().any(|x| x.interfaces.contains(&l)) {
                    return Err(self.err(
                        m.span(),
                        "mobile.interfaces",
                        "links of no other mobile",
                        Some(format!("{:?} twice", b.links[l].name)),
                    ));
                }
            }
            b.mobiles.push(MobileSpec {
                node,
                interfaces,
                initial,
            });
        }
        Ok(())
    }
}

/// A span for errors about a table read without one of its own (`[[mobile]]`).
struct Located(Range<usize>);

impl Located {
    fn span(&self) -> Range<usize> {
        self.0.clone()
    }
}
