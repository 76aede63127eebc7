;; Counts newline bytes 16 at a time with WebAssembly SIMD; src/search/newlines.ts embeds the assembled bytes
;; (test/search/newlines.test.ts assembles this file with wabt and checks they match).
(module
  (memory (export "memory") 1)
  ;; count(start, end): the number of bytes equal to 10 (\n) in memory[start, end)
  (func (export "count") (param $p i32) (param $end i32) (result i32)
    (local $c i32) (local $acc v128) (local $k i32) (local $vend i32)
    (local.set $vend (i32.sub (local.get $end) (i32.const 16)))
    (block $done
      (loop $outer
        (br_if $done (i32.gt_s (local.get $p) (local.get $vend)))
        (local.set $acc (v128.const i64x2 0 0))
        (local.set $k (i32.const 0))
        (block $flush
          (loop $inner
            (br_if $flush (i32.gt_s (local.get $p) (local.get $vend)))
            (br_if $flush (i32.ge_u (local.get $k) (i32.const 255)))
            (local.set $acc (i8x16.sub (local.get $acc)
              (i8x16.eq (v128.load (local.get $p)) (i8x16.splat (i32.const 10)))))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $inner)))
        (local.set $acc (i32x4.extadd_pairwise_i16x8_u (i16x8.extadd_pairwise_i8x16_u (local.get $acc))))
        (local.set $c (i32.add (local.get $c)
          (i32.add (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
                   (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc))))))
        (br $outer)))
    (block $tdone
      (loop $tail
        (br_if $tdone (i32.ge_u (local.get $p) (local.get $end)))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 10))
          (then (local.set $c (i32.add (local.get $c) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $tail)))
    (local.get $c)))
