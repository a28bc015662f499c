control X( {
