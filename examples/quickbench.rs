fn main() {
    for size in [9usize, 19] {
        let r = tengen::playout::bench(size, 3.0, 1, 1).unwrap();
        println!(
            "size={size} playouts/s={:.0} moves/s={:.0}",
            r.playouts_per_second(),
            r.moves_per_second()
        );
    }
}
