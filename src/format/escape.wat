;; Text records, 16 bytes at a time with WebAssembly SIMD: lines of valid UTF-8 in, one JSON string record per
;; line out (`"…"\n`), escaping `"`, `\` and control characters exactly as escape.ts does. src/format/escape-simd.ts
;; embeds the assembled bytes (test/format/escape-simd.test.ts assembles this file and checks they match).
;;
;; records(src, end, dst, crlf): the lines in [src, end) (end just after a \n) as records from dst on. With crlf,
;; a line ends with \r\n (the \r is not part of it); a \n without \r before it stops the work there. Returns
;; where the output ends; the number of records is stored at 0, and where the input stopped at 4 (end, or the
;; start of the line with a bare \n). dst needs room for 6 bytes per input byte plus 3 per line.
(module
  (memory (export "memory") 1)

  (func (export "records") (param $s i32) (param $end i32) (param $d i32) (param $crlf i32) (result i32)
    (local $c i32) (local $m i32) (local $v v128) (local $lines i32) (local $lineStart i32) (local $lineOut i32) (local $vend i32)
    (local.set $vend (i32.sub (local.get $end) (i32.const 16)))
    (local.set $lineStart (local.get $s))
    (block $stop
      (block $done
        ;; a record opens
        (loop $line
          (br_if $done (i32.ge_u (local.get $s) (local.get $end)))
          (local.set $lineStart (local.get $s))
          (local.set $lineOut (local.get $d))
          (i32.store8 (local.get $d) (i32.const 34))
          (local.set $d (i32.add (local.get $d) (i32.const 1)))
          (loop $bytes
            ;; 16 ordinary bytes (none below 0x20, none " or \) are copied as they are; else the ordinary bytes before
            ;; the first special one (all 16 are stored: what follows them overwrites the rest)
            (block $slow
              (br_if $slow (i32.gt_s (local.get $s) (local.get $vend)))
              (local.set $v (v128.load (local.get $s)))
              (local.set $m (i8x16.bitmask (v128.or
                (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 32)))
                (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 34)))
                         (i8x16.eq (local.get $v) (i8x16.splat (i32.const 92)))))))
              (v128.store (local.get $d) (local.get $v))
              (if (i32.eqz (local.get $m))
                (then
                  (local.set $s (i32.add (local.get $s) (i32.const 16)))
                  (local.set $d (i32.add (local.get $d) (i32.const 16)))
                  (br $bytes)))
              (local.set $m (i32.ctz (local.get $m)))
              (local.set $s (i32.add (local.get $s) (local.get $m)))
              (local.set $d (i32.add (local.get $d) (local.get $m))))
            ;; one byte at a time: the special one (or the last 16 bytes of the input)
            (local.set $c (i32.load8_u (local.get $s)))
            (local.set $s (i32.add (local.get $s) (i32.const 1)))
            (if (i32.and (i32.ge_u (local.get $c) (i32.const 32)) (i32.and (i32.ne (local.get $c) (i32.const 34)) (i32.ne (local.get $c) (i32.const 92))))
              (then
                (i32.store8 (local.get $d) (local.get $c))
                (local.set $d (i32.add (local.get $d) (i32.const 1)))
                (br $bytes)))
            ;; the end of the line: \n, or \r\n with crlf
            (if (i32.eq (local.get $c) (i32.const 10))
              (then
                (if (local.get $crlf)
                  (then
                    ;; a bare \n: give back this line
                    (local.set $s (local.get $lineStart))
                    (local.set $d (local.get $lineOut))
                    (br $stop)))
                (i32.store16 (local.get $d) (i32.const 0x0a22)) ;; "\n
                (local.set $d (i32.add (local.get $d) (i32.const 2)))
                (local.set $lines (i32.add (local.get $lines) (i32.const 1)))
                (br $line)))
            (if (i32.and (local.get $crlf) (i32.and (i32.eq (local.get $c) (i32.const 13)) (i32.eq (i32.load8_u (local.get $s)) (i32.const 10))))
              (then
                (local.set $s (i32.add (local.get $s) (i32.const 1)))
                (i32.store16 (local.get $d) (i32.const 0x0a22))
                (local.set $d (i32.add (local.get $d) (i32.const 2)))
                (local.set $lines (i32.add (local.get $lines) (i32.const 1)))
                (br $line)))
            ;; an escape
            (i32.store8 (local.get $d) (i32.const 92))
            (local.set $d (i32.add (local.get $d) (i32.const 1)))
            (if (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 92)))
              (then
                (i32.store8 (local.get $d) (local.get $c))
                (local.set $d (i32.add (local.get $d) (i32.const 1)))
                (br $bytes)))
            (block $short
              (block $u
                (br_table $short $short $short $u $short $short $u (i32.sub (local.get $c) (i32.const 8))))
              ;; \u00XX (lower-case hex)
              (i32.store (local.get $d) (i32.const 0x30303075)) ;; u00 then a placeholder 0
              (i32.store8 offset=3 (local.get $d) (i32.load8_u offset=16 (i32.shr_u (local.get $c) (i32.const 4))))
              (i32.store8 offset=4 (local.get $d) (i32.load8_u offset=16 (i32.and (local.get $c) (i32.const 15))))
              (local.set $d (i32.add (local.get $d) (i32.const 5)))
              (br $bytes))
            ;; \b \t \f \r (\n never reaches here; the others take \u00XX, the table's default)
            (i32.store8 (local.get $d) (i32.load8_u offset=32 (local.get $c)))
            (local.set $d (i32.add (local.get $d) (i32.const 1)))
            (br $bytes)))))
    (i32.store (i32.const 0) (local.get $lines))
    (i32.store (i32.const 4) (local.get $s))
    (local.get $d))

  ;; 16: the hex digits; 32 + c: the letter of the short escape of control character c
  (data (i32.const 16) "0123456789abcdef")
  (data (i32.const 40) "btn\00fr"))
