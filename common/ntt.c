/* ntt: written under the foundation issue */
