;; JSON lines checked in WebAssembly: whether each line is one JSON value (as JSON.parse accepts it: RFC 8259,
;; whitespace around it allowed), without building it; strings are passed 16 bytes at a time with SIMD. The
;; bytes must be valid UTF-8 (checked before). src/format/json-simd.ts embeds the assembled bytes
;; (test/format/json-simd.test.ts assembles this file and checks they match, and checks it against JSON.parse).
;;
;; Memory: [1024, 65536) a stack of open containers (1 byte each: 1 object, 2 array); data from 65536 on.
(module
  (memory (export "memory") 2)

  ;; ws(p, end): the first position at or after p that is not JSON whitespace (space, \t, \n, \r)
  (func $ws (param $p i32) (param $end i32) (result i32)
    (local $c i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $p)))
        (br_if $done (i32.eqz (i32.or (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 9)))
                                      (i32.or (i32.eq (local.get $c) (i32.const 10)) (i32.eq (local.get $c) (i32.const 13))))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (local.get $p))

  ;; hex(c): whether c is a hex digit
  (func $hex (param $c i32) (result i32)
    (i32.or (i32.lt_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 10))
            (i32.lt_u (i32.sub (i32.or (local.get $c) (i32.const 32)) (i32.const 97)) (i32.const 6))))

  ;; string(p, end): p just after an opening quote; the position after the closing quote, or 0 if the string is
  ;; not valid or not closed before end
  (func $string (param $p i32) (param $end i32) (result i32)
    (local $v v128) (local $bits i32) (local $c i32)
    (loop $next
      ;; 16 ordinary bytes at a time
      (block $slow
        (br_if $slow (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $v (v128.load (local.get $p)))
        (local.set $bits (i8x16.bitmask (v128.or
          (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 32)))
          (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 34)))
                   (i8x16.eq (local.get $v) (i8x16.splat (i32.const 92)))))))
        (if (i32.eqz (local.get $bits))
          (then
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (br $next)))
        (local.set $p (i32.add (local.get $p) (i32.ctz (local.get $bits)))))
      (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const 0))))
      (local.set $c (i32.load8_u (local.get $p)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (if (i32.eq (local.get $c) (i32.const 34)) (then (return (local.get $p))))
      (if (i32.lt_u (local.get $c) (i32.const 32)) (then (return (i32.const 0))))
      (if (i32.eq (local.get $c) (i32.const 92))
        (then
          (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const 0))))
          (local.set $c (i32.load8_u (local.get $p)))
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (if (i32.eq (local.get $c) (i32.const 117)) ;; \uXXXX
            (then
              (if (i32.gt_u (i32.add (local.get $p) (i32.const 4)) (local.get $end)) (then (return (i32.const 0))))
              (if (i32.eqz (i32.and (i32.and (call $hex (i32.load8_u (local.get $p))) (call $hex (i32.load8_u offset=1 (local.get $p))))
                                    (i32.and (call $hex (i32.load8_u offset=2 (local.get $p))) (call $hex (i32.load8_u offset=3 (local.get $p))))))
                (then (return (i32.const 0))))
              (local.set $p (i32.add (local.get $p) (i32.const 4))))
            (else
              ;; " \ / b f n r t
              (if (i32.eqz (i32.or (i32.or (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 92)))
                                           (i32.or (i32.eq (local.get $c) (i32.const 47)) (i32.eq (local.get $c) (i32.const 98))))
                                   (i32.or (i32.or (i32.eq (local.get $c) (i32.const 102)) (i32.eq (local.get $c) (i32.const 110)))
                                           (i32.or (i32.eq (local.get $c) (i32.const 114)) (i32.eq (local.get $c) (i32.const 116))))))
                (then (return (i32.const 0))))))))
      (br $next))
    (unreachable))

  ;; digits(p, end): the first position at or after p that is not a digit
  (func $digits (param $p i32) (param $end i32) (result i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (br_if $done (i32.ge_u (i32.sub (i32.load8_u (local.get $p)) (i32.const 48)) (i32.const 10)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (local.get $p))

  ;; number(p, end): the position after the number at p, or 0 if there is none
  (func $number (param $p i32) (param $end i32) (result i32)
    (local $q i32)
    (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 45)) (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
    (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const 0))))
    ;; 0, or a digit 1-9 and more digits
    (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 48))
      (then (local.set $p (i32.add (local.get $p) (i32.const 1))))
      (else
        (local.set $q (call $digits (local.get $p) (local.get $end)))
        (if (i32.eq (local.get $q) (local.get $p)) (then (return (i32.const 0))))
        (local.set $p (local.get $q))))
    ;; a fraction
    (if (i32.and (i32.lt_u (local.get $p) (local.get $end)) (i32.eq (i32.load8_u (local.get $p)) (i32.const 46)))
      (then
        (local.set $q (call $digits (i32.add (local.get $p) (i32.const 1)) (local.get $end)))
        (if (i32.eq (local.get $q) (i32.add (local.get $p) (i32.const 1))) (then (return (i32.const 0))))
        (local.set $p (local.get $q))))
    ;; an exponent
    (if (i32.and (i32.lt_u (local.get $p) (local.get $end)) (i32.eq (i32.or (i32.load8_u (local.get $p)) (i32.const 32)) (i32.const 101)))
      (then
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (if (i32.and (i32.lt_u (local.get $p) (local.get $end))
                     (i32.or (i32.eq (i32.load8_u (local.get $p)) (i32.const 43)) (i32.eq (i32.load8_u (local.get $p)) (i32.const 45))))
          (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
        (local.set $q (call $digits (local.get $p) (local.get $end)))
        (if (i32.eq (local.get $q) (local.get $p)) (then (return (i32.const 0))))
        (local.set $p (local.get $q))))
    (local.get $p))

  ;; word(p, end, w, n): the position after the n bytes of w (little-endian in an i64) at p, or 0
  (func $word (param $p i32) (param $end i32) (param $w i64) (param $n i32) (result i32)
    (local $i i32)
    (if (i32.gt_u (i32.add (local.get $p) (local.get $n)) (local.get $end)) (then (return (i32.const 0))))
    (block $no
      (loop $next
        (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.add (local.get $p) (local.get $n)))))
        (br_if $no (i32.ne (i32.load8_u (i32.add (local.get $p) (local.get $i)))
                           (i32.wrap_i64 (i64.and (i64.shr_u (local.get $w) (i64.extend_i32_u (i32.shl (local.get $i) (i32.const 3)))) (i64.const 255)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const 0))

  ;; value(p, end): 1 if [p, end) is one JSON value with whitespace around it, 0 if not, -1 if it nests deeper
  ;; than the stack holds (then JavaScript decides)
  (func $value (export "value") (param $p i32) (param $end i32) (result i32)
    (local $depth i32) (local $c i32) (local $state i32) (local $top i32)
    ;; state 0: a value is expected; 1: a key is expected (after { or ,); 2: a value ended
    (loop $machine
      (local.set $p (call $ws (local.get $p) (local.get $end)))
      (if (i32.eq (local.get $state) (i32.const 2))
        (then
          (if (i32.eqz (local.get $depth)) (then (return (i32.eq (local.get $p) (local.get $end)))))
          (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const 0))))
          (local.set $c (i32.load8_u (local.get $p)))
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (local.set $top (i32.load8_u offset=1023 (local.get $depth)))
          (if (i32.eq (local.get $c) (i32.const 44)) ;; ,
            (then
              (local.set $state (i32.eq (local.get $top) (i32.const 1)))
              (br $machine)))
          (if (i32.or (i32.and (i32.eq (local.get $c) (i32.const 125)) (i32.eq (local.get $top) (i32.const 1)))
                      (i32.and (i32.eq (local.get $c) (i32.const 93)) (i32.eq (local.get $top) (i32.const 2))))
            (then
              (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
              (br $machine)))
          (return (i32.const 0))))
      (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const 0))))
      (local.set $c (i32.load8_u (local.get $p)))
      (if (i32.eq (local.get $state) (i32.const 1))
        (then
          ;; "key" :
          (if (i32.ne (local.get $c) (i32.const 34)) (then (return (i32.const 0))))
          (local.set $p (call $string (i32.add (local.get $p) (i32.const 1)) (local.get $end)))
          (if (i32.eqz (local.get $p)) (then (return (i32.const 0))))
          (local.set $p (call $ws (local.get $p) (local.get $end)))
          (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const 0))))
          (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 58)) (then (return (i32.const 0))))
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (local.set $state (i32.const 0))
          (br $machine)))
      ;; a value
      (local.set $state (i32.const 2))
      (if (i32.or (i32.eq (local.get $c) (i32.const 123)) (i32.eq (local.get $c) (i32.const 91))) ;; { [
        (then
          (if (i32.ge_u (local.get $depth) (i32.const 64512)) (then (return (i32.const -1))))
          (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
          (i32.store8 offset=1023 (local.get $depth) (select (i32.const 1) (i32.const 2) (i32.eq (local.get $c) (i32.const 123))))
          (local.set $p (call $ws (i32.add (local.get $p) (i32.const 1)) (local.get $end)))
          ;; empty: {} or []
          (if (i32.and (i32.lt_u (local.get $p) (local.get $end))
                       (i32.eq (i32.load8_u (local.get $p)) (i32.add (local.get $c) (i32.const 2))))
            (then
              (local.set $p (i32.add (local.get $p) (i32.const 1)))
              (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
              (br $machine)))
          (local.set $state (i32.eq (local.get $c) (i32.const 123)))
          (br $machine)))
      (if (i32.eq (local.get $c) (i32.const 34))
        (then (local.set $p (call $string (i32.add (local.get $p) (i32.const 1)) (local.get $end))))
        (else
          (if (i32.or (i32.eq (local.get $c) (i32.const 45)) (i32.lt_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 10)))
            (then (local.set $p (call $number (local.get $p) (local.get $end))))
            (else
              (if (i32.eq (local.get $c) (i32.const 116))
                (then (local.set $p (call $word (local.get $p) (local.get $end) (i64.const 0x65757274) (i32.const 4)))) ;; true
                (else
                  (if (i32.eq (local.get $c) (i32.const 102))
                    (then (local.set $p (call $word (local.get $p) (local.get $end) (i64.const 0x65736c6166) (i32.const 5)))) ;; false
                    (else
                      (if (i32.eq (local.get $c) (i32.const 110))
                        (then (local.set $p (call $word (local.get $p) (local.get $end) (i64.const 0x6c6c756e) (i32.const 4)))) ;; null
                        (else (return (i32.const 0))))))))))))
      (if (i32.eqz (local.get $p)) (then (return (i32.const 0))))
      (br $machine))
    (unreachable))

  ;; lines(p, end): checks whole lines from p (each ending in \n) until one is not a JSON value (an empty line is
  ;; not); returns where that line starts, or end. The number of lines that were values is stored at 0.
  (func (export "lines") (param $p i32) (param $end i32) (result i32)
    (local $nl i32) (local $n i32) (local $r i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        ;; the line's end
        (local.set $nl (local.get $p))
        (block $found
          (loop $scan
            (br_if $found (i32.eq (i32.load8_u (local.get $nl)) (i32.const 10)))
            (local.set $nl (i32.add (local.get $nl) (i32.const 1)))
            (br $scan)))
        (br_if $done (i32.eq (local.get $nl) (local.get $p)))
        (local.set $r (call $value (local.get $p) (local.get $nl)))
        (br_if $done (i32.ne (local.get $r) (i32.const 1)))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (local.set $p (i32.add (local.get $nl) (i32.const 1)))
        (br $next)))
    (i32.store (i32.const 0) (local.get $n))
    (local.get $p)))
