/* ec: written under the foundation issue */
