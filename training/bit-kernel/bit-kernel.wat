;; XOR/AND + popcount of packed bit rows with WebAssembly SIMD (see kernel.ts for the contract).
;; Rows are wpr 32-bit words; 4 words make one v128. Byte popcounts are summed as i8 lanes for up
;; to 31 vectors (8 per lane each, 31 * 8 = 248 < 256), then widened; tail words use i32.popcnt.
(module
  (memory (export "memory") 1)

  ;; Sum of the four i32 lanes of the widened i8 counts.
  (func $widen (param $v v128) (result i32)
    (local $w v128)
    (local.set $w (i32x4.extadd_pairwise_i16x8_u (i16x8.extadd_pairwise_i8x16_u (local.get $v))))
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $w)) (i32x4.extract_lane 1 (local.get $w)))
      (i32.add (i32x4.extract_lane 2 (local.get $w)) (i32x4.extract_lane 3 (local.get $w)))))

  ;; out[r * bRows + j] = popcount((A_r ^ B_j) & M_j); mask = 0 means no mask. Byte offsets.
  (func (export "xorPopcount")
    (param $a i32) (param $aRows i32) (param $b i32) (param $bRows i32) (param $wpr i32)
    (param $mask i32) (param $out i32)
    (local $r i32) (local $j i32) (local $k i32) (local $vecWords i32) (local $rowBytes i32)
    (local $ar i32) (local $br i32) (local $mr i32) (local $acc v128) (local $run i32)
    (local $c i32) (local $v v128)
    (local.set $rowBytes (i32.shl (local.get $wpr) (i32.const 2)))
    (local.set $vecWords (i32.and (local.get $wpr) (i32.const -4)))
    (local.set $r (i32.const 0))
    (block $rdone (loop $rloop
      (br_if $rdone (i32.ge_u (local.get $r) (local.get $aRows)))
      (local.set $ar (i32.add (local.get $a) (i32.mul (local.get $r) (local.get $rowBytes))))
      (local.set $j (i32.const 0))
      (block $jdone (loop $jloop
        (br_if $jdone (i32.ge_u (local.get $j) (local.get $bRows)))
        (local.set $br (i32.add (local.get $b) (i32.mul (local.get $j) (local.get $rowBytes))))
        (local.set $mr (i32.add (local.get $mask) (i32.mul (local.get $j) (local.get $rowBytes))))
        (local.set $c (i32.const 0))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $run (i32.const 0))
        (local.set $k (i32.const 0))
        (block $vdone (loop $vloop
          (br_if $vdone (i32.ge_u (local.get $k) (local.get $vecWords)))
          (local.set $v (v128.xor
            (v128.load (i32.add (local.get $ar) (i32.shl (local.get $k) (i32.const 2))))
            (v128.load (i32.add (local.get $br) (i32.shl (local.get $k) (i32.const 2))))))
          (if (local.get $mask)
            (then (local.set $v (v128.and (local.get $v)
              (v128.load (i32.add (local.get $mr) (i32.shl (local.get $k) (i32.const 2))))))))
          (local.set $acc (i8x16.add (local.get $acc) (i8x16.popcnt (local.get $v))))
          (local.set $run (i32.add (local.get $run) (i32.const 1)))
          (if (i32.eq (local.get $run) (i32.const 31))
            (then
              (local.set $c (i32.add (local.get $c) (call $widen (local.get $acc))))
              (local.set $acc (v128.const i32x4 0 0 0 0))
              (local.set $run (i32.const 0))))
          (local.set $k (i32.add (local.get $k) (i32.const 4)))
          (br $vloop)))
        (local.set $c (i32.add (local.get $c) (call $widen (local.get $acc))))
        (block $tdone (loop $tloop
          (br_if $tdone (i32.ge_u (local.get $k) (local.get $wpr)))
          (local.set $c (i32.add (local.get $c) (i32.popcnt
            (i32.and
              (i32.xor
                (i32.load (i32.add (local.get $ar) (i32.shl (local.get $k) (i32.const 2))))
                (i32.load (i32.add (local.get $br) (i32.shl (local.get $k) (i32.const 2)))))
              (if (result i32) (local.get $mask)
                (then (i32.load (i32.add (local.get $mr) (i32.shl (local.get $k) (i32.const 2)))))
                (else (i32.const -1)))))))
          (local.set $k (i32.add (local.get $k) (i32.const 1)))
          (br $tloop)))
        (i32.store
          (i32.add (local.get $out)
            (i32.shl (i32.add (i32.mul (local.get $r) (local.get $bRows)) (local.get $j)) (i32.const 2)))
          (local.get $c))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $jloop)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rloop))))
)
