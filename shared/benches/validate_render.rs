//! What one keystroke costs: validate the spec and render every file, for the largest
//! seed template and for generated designs of growing size.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use shared::{documents::render, rules};

fn keystroke(spec: &shared::Spec) -> usize {
    let findings = rules::validate_with(spec, &today());
    let cluster = render::render_cluster_yaml(spec).unwrap();
    let karpenter = render::render_karpenter_yaml(spec)
        .unwrap()
        .unwrap_or_default();
    findings.len() + cluster.len() + karpenter.len()
}

/// The facts the page validates with before live checks run: today's date.
fn today() -> rules::LiveFacts {
    rules::LiveFacts::on(shared::catalog::versions::Date::from_days_since_epoch(
        20_789,
    ))
}

/// The parts of a keystroke in the page with `cluster.yaml` on screen, one by one: the
/// rules, the file, and the findings placed on its lines.
fn keystroke_parts(criterion: &mut Criterion) {
    let template = shared::TEMPLATES
        .iter()
        .find(|template| template.id == "karpenter-spot-inference")
        .unwrap();
    for (name, spec) in [
        (template.id.to_owned(), template.spec()),
        (
            "64 node groups".to_owned(),
            shared::templates::sized_spec(64, 16),
        ),
    ] {
        let mut group = criterion.benchmark_group(format!("keystroke parts, {name}"));
        let facts = today();
        let findings = rules::validate_with(&spec, &facts);
        let text = render::render_cluster_yaml(&spec).unwrap();
        group.bench_function("validate", |bencher| {
            bencher.iter(|| rules::validate_with(std::hint::black_box(&spec), &facts))
        });
        group.bench_function("render cluster.yaml", |bencher| {
            bencher.iter(|| render::render_cluster_yaml(std::hint::black_box(&spec)))
        });
        group.bench_function("place findings", |bencher| {
            bencher.iter(|| {
                shared::lint::editable::EditableFile::ClusterConfig.place(
                    std::hint::black_box(&text),
                    &spec,
                    &findings,
                )
            })
        });
        group.finish();
    }
}

fn largest_seed(criterion: &mut Criterion) {
    let largest = shared::TEMPLATES
        .iter()
        .take(7)
        .max_by_key(|template| render::render_cluster_yaml(&template.spec()).unwrap().len())
        .unwrap();
    let spec = largest.spec();
    criterion.bench_function(&format!("validate+render {}", largest.id), |bencher| {
        bencher.iter(|| keystroke(std::hint::black_box(&spec)))
    });
}

fn growing_specs(criterion: &mut Criterion) {
    let mut group = criterion.benchmark_group("validate+render by node groups");
    for node_groups in [1usize, 8, 64, 256] {
        let spec = shared::templates::sized_spec(node_groups, node_groups / 4);
        group.throughput(Throughput::Elements(node_groups as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(node_groups),
            &spec,
            |bencher, spec| bencher.iter(|| keystroke(std::hint::black_box(spec))),
        );
    }
    group.finish();
}

fn lint_seed(criterion: &mut Criterion) {
    let text = include_str!("../tests/data/seeds/eks-p5-odcr-vpc.yaml");
    criterion.bench_function("lint eks-p5-odcr-vpc.yaml", |bencher| {
        bencher.iter(|| {
            shared::lint::lint_text("eks-p5-odcr-vpc.yaml", std::hint::black_box(text)).unwrap()
        })
    });
}

criterion_group!(
    benches,
    largest_seed,
    growing_specs,
    keystroke_parts,
    lint_seed
);
criterion_main!(benches);
